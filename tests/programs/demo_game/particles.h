// The particle trail of --particle-trail (demo_truth.h): one allocation per
// gameplay frame that a default run does not make.
#pragma once

namespace memframe::demo {

// Allocates one ParticleTrail (kParticleTrailBytes), fills it and frees it;
// returns a value computed from it so the allocation cannot be elided.
int EmitParticleTrail(int gameplay_frame);

}  // namespace memframe::demo
