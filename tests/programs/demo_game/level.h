// The level: a few plain arrays allocated in one go by LoadLevel and freed
// by UnloadLevel, except the nav mesh, which the game leaks on purpose so
// that memframe's leak report has a known entry (demo_truth.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "demo_truth.h"

namespace memframe::demo {

struct SpawnPoint {
  float x;
  float y;
  std::uint32_t enemy_kind;
  std::uint32_t wave;
};
static_assert(sizeof(SpawnPoint) == kSpawnPointBytes, "demo_truth.h: kSpawnPointBytes is stale");

struct Level {
  float* terrain_heights = nullptr;     // kTerrainCells, new float[]
  std::uint8_t* tile_map = nullptr;     // kTileMapBytes, malloc
  SpawnPoint* spawn_points = nullptr;   // kSpawnPointCount, new SpawnPoint[]
  void* nav_mesh = nullptr;             // kNavMeshBytes, malloc in LoadNavMesh
};

// Allocates exactly kLevelBlocks blocks, kLevelBytes bytes in total, and
// fills them deterministically.
Level LoadLevel();

// Frees everything LoadLevel allocated except the nav mesh (the deliberate
// leak), and empties `level`.
void UnloadLevel(Level& level);

}  // namespace memframe::demo
