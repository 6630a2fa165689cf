// What custom_allocators.cc does, shared with the tests that check the
// capture: a frame arena, a particle pool and an audio ring, each declared
// through annotate.h and carved from a malloc'd slab whose first
// kAllocatorHeader bytes hold the allocator's own bookkeeping.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::targets::custom_allocators {

constexpr int kFrames = 60;
constexpr size_t kAllocatorHeader = 64;

// Frame arena: four blocks a frame, reset at the end of every frame.
constexpr const char* kArenaName = "frame arena";
constexpr size_t kArenaCapacity = 64 * 1024;
constexpr size_t kArenaBlockSizes[] = {256, 512, 1024, 2048};
constexpr int kArenaBlocksPerFrame = 4;
constexpr size_t kArenaBytesPerFrame = 256 + 512 + 1024 + 2048;
// The game keeps its 512-byte block of this frame past the reset and gives
// it back at the start of the next frame: the block outlived its arena.
constexpr int kOutlivedFrame = 40;
constexpr size_t kOutlivedSize = 512;

// Particle pool: 64-byte slots; four particles a frame, each given back
// kParticleLife frames later; the pool is cleared once (a level change),
// and the particles of the last kParticleLife frames are never given back.
constexpr const char* kPoolName = "particle pool";
constexpr size_t kPoolSlot = 64;
constexpr size_t kPoolSlots = 128;
constexpr size_t kPoolCapacity = kPoolSlot * kPoolSlots;
constexpr int kParticlesPerFrame = 4;
constexpr int kParticleLife = 3;
constexpr int kPoolClearFrame = 30;

// Audio ring: one 1 KiB command block a frame, freed in order kRingDelay
// frames later; drained after the last frame. The ring is fed on its own
// thread, in lock-step with the main thread; the other allocators are the
// main thread's.
constexpr const char* kAudioThreadName = "audio-mixer";
constexpr const char* kRingName = "audio ring";
constexpr size_t kRingSlot = 1024;
constexpr size_t kRingSlots = 16;
constexpr size_t kRingCapacity = kRingSlot * kRingSlots;
constexpr int kRingDelay = 4;

}  // namespace memframe::targets::custom_allocators
