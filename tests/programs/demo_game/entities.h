// Short-lived gameplay objects: floating damage numbers and projectiles.
// Each kind is heap-allocated from exactly one call site with a fixed
// lifetime, so a memframe capture shows a known per-frame pattern
// (demo_truth.h).
#pragma once

#include <array>
#include <cstdint>

#include "demo_truth.h"

namespace memframe::demo {

// A "-12" that floats up from an enemy after a hit.
struct DamageLabel {
  float x;
  float y;
  float rise_speed;
  std::int32_t amount;
  std::int32_t spawn_frame;  // gameplay frame index
  char text[28];
};
static_assert(sizeof(DamageLabel) == kDamageLabelBytes, "demo_truth.h: kDamageLabelBytes is stale");

struct Projectile {
  float x;
  float y;
  float velocity_x;
  float velocity_y;
  std::int32_t spawn_frame;  // gameplay frame index
  std::uint32_t owner;
  float radius;
  float damage;
};
static_assert(sizeof(Projectile) == kProjectileBytes, "demo_truth.h: kProjectileBytes is stale");

// Live objects sit in fixed arrays (no container growth to blur the
// allocation counts). A label lives kLabelLifetimeFrames frames, with
// kHitsPerFrame spawned per frame, so that many slots always suffice; the
// same reasoning sizes the projectile array.
inline constexpr int kMaxLiveLabels = kHitsPerFrame * kLabelLifetimeFrames;
inline constexpr int kMaxLiveProjectiles =
    (kProjectileLifetimeFrames + kProjectileInterval - 1) / kProjectileInterval;

struct Entities {
  std::array<DamageLabel*, kMaxLiveLabels> labels{};
  std::array<Projectile*, kMaxLiveProjectiles> projectiles{};
  std::int32_t score = 0;
  std::int32_t hits_landed = 0;
};

// One gameplay frame: deletes what expired this frame, then spawns this
// frame's labels and (on schedule) a projectile, then moves everything.
// `gameplay_frame` counts from 0 at the first gameplay frame.
void UpdateGameplay(Entities& entities, int gameplay_frame);

// Deletes every object still alive (the unload frame).
void DestroyAllEntities(Entities& entities);

}  // namespace memframe::demo
