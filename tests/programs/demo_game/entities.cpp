#include "entities.h"

#include <cstdio>
#include <stdexcept>

namespace memframe::demo {
namespace {

// Puts `object` into the first empty slot. The slot arrays are sized so
// that a free slot always exists; running out means the lifetimes in
// demo_truth.h and the array sizes disagree, a bug worth stopping for.
template <typename T, std::size_t N>
void StoreInFreeSlot(std::array<T*, N>& slots, T* object) {
  for (T*& slot : slots) {
    if (slot == nullptr) {
      slot = object;
      return;
    }
  }
  throw std::logic_error("demo game: no free entity slot");
}

void DeleteExpiredLabels(Entities& entities, int gameplay_frame) {
  for (DamageLabel*& label : entities.labels) {
    if (label != nullptr && gameplay_frame - label->spawn_frame == kLabelLifetimeFrames) {
      delete label;
      label = nullptr;
    }
  }
}

void DeleteExpiredProjectiles(Entities& entities, int gameplay_frame) {
  for (Projectile*& projectile : entities.projectiles) {
    if (projectile != nullptr && gameplay_frame - projectile->spawn_frame == kProjectileLifetimeFrames) {
      delete projectile;
      projectile = nullptr;
    }
  }
}

}  // namespace

// The only place a DamageLabel is allocated.
__attribute__((noinline)) static DamageLabel* SpawnDamageLabel(int gameplay_frame, int hit) {
  const std::int32_t amount = 10 + (gameplay_frame * 7 + hit * 3) % 40;
  auto* label = new DamageLabel{};
  label->x = 200.0f + static_cast<float>(hit) * 160.0f;
  label->y = 180.0f;
  label->rise_speed = 1.5f;
  label->amount = amount;
  label->spawn_frame = gameplay_frame;
  std::snprintf(label->text, sizeof(label->text), "-%d", amount);
  return label;
}

// The only place a Projectile is allocated.
__attribute__((noinline)) static Projectile* FireProjectile(int gameplay_frame) {
  auto* projectile = new Projectile{};
  projectile->x = 60.0f;
  projectile->y = 180.0f;
  projectile->velocity_x = 40.0f;
  projectile->velocity_y = 0.0f;
  projectile->spawn_frame = gameplay_frame;
  projectile->owner = 1;
  projectile->radius = 6.0f;
  projectile->damage = 25.0f;
  return projectile;
}

void UpdateGameplay(Entities& entities, int gameplay_frame) {
  // Free before spawning: a slot freed this frame can be reused this frame.
  DeleteExpiredLabels(entities, gameplay_frame);
  DeleteExpiredProjectiles(entities, gameplay_frame);

  for (int hit = 0; hit < kHitsPerFrame; ++hit) {
    DamageLabel* label = SpawnDamageLabel(gameplay_frame, hit);
    entities.score += label->amount;
    ++entities.hits_landed;
    StoreInFreeSlot(entities.labels, label);
  }
  if (gameplay_frame % kProjectileInterval == 0) {
    StoreInFreeSlot(entities.projectiles, FireProjectile(gameplay_frame));
  }

  for (DamageLabel* label : entities.labels) {
    if (label != nullptr) label->y -= label->rise_speed;
  }
  for (Projectile* projectile : entities.projectiles) {
    if (projectile != nullptr) {
      projectile->x += projectile->velocity_x;
      projectile->y += projectile->velocity_y;
    }
  }
}

void DestroyAllEntities(Entities& entities) {
  for (DamageLabel*& label : entities.labels) {
    delete label;
    label = nullptr;
  }
  for (Projectile*& projectile : entities.projectiles) {
    delete projectile;
    projectile = nullptr;
  }
}

}  // namespace memframe::demo
