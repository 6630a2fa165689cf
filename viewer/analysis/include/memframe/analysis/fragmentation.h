// How the live heap and the anonymous mappings are laid out in the address
// space, and how fragmented they are, over time.
//
// The analysis sees blocks, not glibc's arenas, so a *heap region* is a
// cluster of live blocks outside any recorded mapping: sorted by address, a
// new region starts where the gap after the previous block exceeds
// kRegionGap. A *mapped region* is a live anonymous mapping (mapped_regions.h);
// the blocks the capture saw inside it count as its live bytes (a custom
// allocator's own blocks are invisible, so an unused-looking mapping may be
// full).
//
// Inside a region, the gap between one block's end and the next block's
// start (for a mapped region also before the first and after the last
// block) is a *hole* when it is larger than kHoleSlack: smaller gaps are the
// allocator's header and alignment. free = the sum of the holes;
// fragmentation = 1 - largest hole / free, 0 when there is no hole.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/live_set.h"
#include "memframe/analysis/mapped_regions.h"

namespace memframe::analysis {

constexpr uint64_t kRegionGap = 1u << 20;
constexpr uint64_t kHoleSlack = 32;

struct RegionLayout {
  bool mapped = false;
  uint64_t start = 0;
  uint64_t end = 0;  // one past the last byte: span = end - start
  uint64_t blocks = 0;
  uint64_t live_bytes = 0;
  uint64_t holes = 0;
  uint64_t free_bytes = 0;
  uint64_t largest_free_gap = 0;
  double fragmentation = 0;
  uint32_t stack_id = 0;  // mapped: the stack that mapped it
  uint64_t span() const { return end - start; }
};

// The address space at one cut: live blocks in address order, live mappings.
struct AddressSpace {
  uint64_t frame = 0;
  uint64_t first_frame = 0;  // of the capture: the oldest a block can be
  std::map<uint64_t, LiveBlock> blocks;
  MappedRegions mapped;
};

// Heap regions first, then mapped regions, each in address order.
std::vector<RegionLayout> LayoutRegions(const AddressSpace& space);

double Fragmentation(uint64_t largest_free_gap, uint64_t free_bytes);

struct FragmentationSample {
  uint64_t frame = 0;
  std::vector<RegionLayout> regions;  // LayoutRegions at the end of the frame
};

// The frames to sample among the capture's frames (FrameTable rows, in
// order) up to `last_frame`: every one when there are at most
// `max_samples`, else `max_samples` of them evenly spread by position, the
// first and the last included.
std::vector<uint64_t> SampleFrames(const FrameTable& table, uint64_t last_frame, uint32_t max_samples);

// The layout at the end of each of `frames` (ascending). "End of frame F"
// is the address space just before the first event of a later frame (or at
// the end of the capture): with one thread this is exactly every event of
// frames <= F.
std::vector<FragmentationSample> FragmentationTimeline(const Stream& stream, const std::vector<uint64_t>& frames);

// The whole address space at the end of `frame` (same cut as above).
AddressSpace AddressSpaceAtFrame(const Stream& stream, uint64_t frame);

}  // namespace memframe::analysis
