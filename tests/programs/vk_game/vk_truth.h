// Ground truth of the Vulkan game (memframe_vk_game): two levels of known
// device memory, buffers and images under Mesa's lavapipe, a game's own
// sub-allocation (many resources bound into one block) beside dedicated
// blocks, and one staging buffer it forgets (never destroyed, its memory
// never freed). The game includes this header and the integration test
// includes it to know what `memframe report gpu` must say.
//
// Frames follow memframe (proto/FORMAT.md): frame N is the N-th frame of
// the game's loop, each ended by its vkQueuePresentKHR.
//   frames 0..kLevel1Frame-1   menu: no GPU object (the swapchain's images
//                              are the driver's and never seen)
//   frame kLevel1Frame         level 1 loads: kLevel1Blocks and their
//                              resources, through the calls the game links
//   frame kLevel2Frame         level 1 unloads (all but the staging block),
//                              level 2 loads: kLevel2Blocks, through
//                              pointers from vkGetDeviceProcAddr, bound with
//                              vkBind*Memory2
//   frame kEndFrame            level 2 unloads; the game exits with the
//                              staging buffer and its memory alive
//
// The game checks at run time that the driver requires exactly these bytes
// of each resource (vkGet*MemoryRequirements) and exits with status 4 if not.
#pragma once

#include <cstdint>

namespace memframe::vk_game {

inline constexpr int kLevel1Frame = 10;
inline constexpr int kLevel2Frame = 40;
inline constexpr int kEndFrame = 70;

enum class Kind { kBuffer, kImage };

struct Resource {
  const char* what;
  Kind kind;
  uint64_t bytes;   // what the driver requires
  uint64_t offset;  // where it is bound in its block
};

struct Block {
  const char* what;
  bool device_local;  // else host-visible and coherent
  uint64_t bytes;
  const Resource* resources;
  int resource_count;
};

inline constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

// One device-local block that the game sub-allocates: two RGBA8 256x256
// images and two buffers.
inline constexpr Resource kWorldResources[] = {
    {"albedo", Kind::kImage, 256 * 256 * 4, 0},
    {"normal", Kind::kImage, 256 * 256 * 4, 256 * KiB},
    {"vertices", Kind::kBuffer, 1 * MiB, 512 * KiB},
    {"indices", Kind::kBuffer, 256 * KiB, 1536 * KiB},
};
inline constexpr Resource kUniformResources[] = {{"uniforms", Kind::kBuffer, 64 * KiB, 0}};
inline constexpr Resource kStagingResources[] = {{"staging", Kind::kBuffer, 128 * KiB, 0}};
inline constexpr Block kLevel1Blocks[] = {
    {"world", true, 4 * MiB, kWorldResources, 4},
    {"uniform block", false, 64 * KiB, kUniformResources, 1},
    {"staging block", false, 128 * KiB, kStagingResources, 1},  // forgotten
};
inline constexpr uint64_t kStagingBytes = 128 * KiB;

// A D32_SFLOAT 512x512 shadow map and a particle buffer in one block.
inline constexpr Resource kShadowResources[] = {
    {"shadow", Kind::kImage, 512 * 512 * 4, 0},
    {"particles", Kind::kBuffer, 512 * KiB, 1 * MiB},
};
inline constexpr Resource kConstantResources[] = {{"constants", Kind::kBuffer, 32 * KiB, 0}};
inline constexpr Block kLevel2Blocks[] = {
    {"shadow block", true, 2 * MiB, kShadowResources, 2},
    {"constant block", false, 32 * KiB, kConstantResources, 1},
};

constexpr uint64_t BlockBytes(const Block* blocks, int count) {
  uint64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += blocks[i].bytes;
  return sum;
}
constexpr int ResourceCount(const Block* blocks, int count) {
  int sum = 0;
  for (int i = 0; i < count; ++i) sum += blocks[i].resource_count;
  return sum;
}
inline constexpr int kLevel1BlockCount = sizeof(kLevel1Blocks) / sizeof(kLevel1Blocks[0]);
inline constexpr int kLevel2BlockCount = sizeof(kLevel2Blocks) / sizeof(kLevel2Blocks[0]);
// Live device memory at the end of each load's frame, and at the end.
inline constexpr uint64_t kLevel1MemoryBytes = BlockBytes(kLevel1Blocks, kLevel1BlockCount);
inline constexpr uint64_t kLevel2MemoryBytes = BlockBytes(kLevel2Blocks, kLevel2BlockCount) + kStagingBytes;
inline constexpr uint64_t kEndMemoryBytes = kStagingBytes;

}  // namespace memframe::vk_game
