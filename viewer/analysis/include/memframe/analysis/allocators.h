// The game's own allocators (annotate.h: a frame arena, a level stack, a
// pool, a ring) and the private heaps it created (Windows' HeapCreate),
// shown like modules: what each handed out per frame, its high-water against
// its capacity and backing heap block, its bulk releases (a heap's
// destruction), the blocks still live at the end and those the game gave
// back after a release had already freed them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

// The declared allocator holding `address` (the latest declared wins where
// regions overlap), or null.
const AllocatorInfo* AllocatorHolding(const std::vector<AllocatorInfo>& allocators, uint64_t address);

const char* AllocatorKindName(AllocatorKind kind);  // "frame arena", "level stack", "pool", "ring", "heap", "other"

// How reports and views name an allocator: its declared name, and for a
// private heap where it was made ("heap 0x4a0000 created at LoadLevel", the
// function naming its creation stack; the name alone when "").
std::string AllocatorTitle(const AllocatorInfo& info, const std::string& created_in);

// One frame of one allocator.
struct AllocatorFrame {
  uint64_t frame = 0;
  uint64_t blocks = 0;      // handed out in the frame
  uint64_t bytes = 0;
  uint32_t releases = 0;    // bulk releases (resets, rollbacks) in the frame
  uint64_t high_water = 0;  // most bytes in use at any moment of the frame
  uint64_t in_use_end = 0;  // bytes in use when the frame ended
};

// A block the game freed after its allocator's release had freed it: the
// game still held it past the reset (a dangling pointer into the arena).
struct OutlivedBlock {
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t alloc_stack = 0;
  uint64_t alloc_frame = 0;
  uint64_t release_frame = 0;
  uint32_t free_stack = 0;  // 0 unless the capture has free stacks
  uint64_t free_frame = 0;
};

struct AllocatorUsage {
  AllocatorInfo info;
  // The heap block that held `base` when the allocator was first used (its
  // backing memory): its size, 0 when no heap block held it (mmap, static).
  uint64_t backing_block = 0;
  // Every frame from the allocator's first event to its last, frames
  // without events included.
  std::vector<AllocatorFrame> frames;
  uint64_t blocks = 0;  // handed out over the run
  uint64_t bytes = 0;
  uint64_t releases = 0;
  uint64_t high_water = 0;  // the largest frame high-water
  uint64_t median_blocks_per_frame = 0;
  uint64_t median_bytes_per_frame = 0;
  uint64_t median_releases_per_frame = 0;
  uint64_t live_blocks_end = 0;  // never given back nor released
  uint64_t live_bytes_end = 0;
  // A private heap destroyed whole (its one release), and in which frame.
  bool destroyed = false;
  uint64_t destroyed_frame = 0;
  // The frame it was made in (AllocatorInfo::ticks): that of the first
  // event at or after its creation, else of the last event; 0 when unknown.
  uint64_t created_frame = 0;
  std::vector<OutlivedBlock> outlived;

  // high_water / capacity (0 when the capacity is unknown).
  double occupancy() const { return info.capacity ? static_cast<double>(high_water) / info.capacity : 0.0; }
};

// One entry per declared allocator, in the order declared.
std::vector<AllocatorUsage> AnalyzeAllocators(const Stream& stream);

}  // namespace memframe::analysis
