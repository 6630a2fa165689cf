#include "particles.h"

#include "demo_truth.h"

namespace memframe::demo {

namespace {

struct ParticleTrail {
  float points[18];
};
static_assert(sizeof(ParticleTrail) == kParticleTrailBytes);

}  // namespace

__attribute__((noinline)) int EmitParticleTrail(int gameplay_frame) {
  // volatile: the compiler may not fold new/delete of an unused object away.
  ParticleTrail* volatile trail = new ParticleTrail;
  for (int i = 0; i < 18; ++i) trail->points[i] = static_cast<float>(gameplay_frame + i);
  const int sum = static_cast<int>(trail->points[0] + trail->points[17]);
  delete trail;
  return sum;
}

}  // namespace memframe::demo
