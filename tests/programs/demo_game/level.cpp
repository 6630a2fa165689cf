#include "level.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace memframe::demo {

// Allocations here are explicit (new[] / malloc of fixed sizes) rather than
// std::vector growth, so the number of blocks and their sizes are exactly
// the figures in demo_truth.h.

__attribute__((noinline)) static void* LoadNavMesh() {
  void* nav_mesh = std::malloc(kNavMeshBytes);
  if (nav_mesh == nullptr) throw std::bad_alloc();
  // Touch every byte: a real loader would read the mesh from disk.
  std::memset(nav_mesh, 0x4E, kNavMeshBytes);
  return nav_mesh;
}

__attribute__((noinline)) Level LoadLevel() {
  Level level;

  level.terrain_heights = new float[kTerrainCells];
  for (std::size_t cell = 0; cell < kTerrainCells; ++cell) {
    level.terrain_heights[cell] = static_cast<float>(cell % 64) * 0.25f;
  }

  level.tile_map = static_cast<std::uint8_t*>(std::malloc(kTileMapBytes));
  if (level.tile_map == nullptr) throw std::bad_alloc();
  for (std::size_t tile = 0; tile < kTileMapBytes; ++tile) {
    level.tile_map[tile] = static_cast<std::uint8_t>((tile * 7) % 5);
  }

  level.spawn_points = new SpawnPoint[kSpawnPointCount];
  for (std::size_t i = 0; i < kSpawnPointCount; ++i) {
    level.spawn_points[i] = SpawnPoint{static_cast<float>(i) * 10.0f, 20.0f,
                                       static_cast<std::uint32_t>(i % 3),
                                       static_cast<std::uint32_t>(i / 8)};
  }

  level.nav_mesh = LoadNavMesh();
  return level;
}

__attribute__((noinline)) void UnloadLevel(Level& level) {
  delete[] level.terrain_heights;
  std::free(level.tile_map);
  delete[] level.spawn_points;
  // Deliberate leak: the nav mesh is forgotten, never freed. memframe's leak
  // report must show exactly this block (kLeakedBlocks, kLeakedBytes).
  level = Level{};
}

}  // namespace memframe::demo
