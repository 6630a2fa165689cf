// The slowest single calls into the allocator. A stutter from the heap is
// often one call (a malloc that took 40 us while the allocator grew its
// arena, a free that returned pages to the system), lost in its frame's
// total: this names each such call, its frame, its size and its site. No
// threshold: the slowest of the range, each beside its frame's whole time
// in the allocator.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/phases.h"

namespace memframe::analysis {

struct SlowCall {
  uint64_t ticks = 0;           // when it was made
  uint64_t frame = 0;
  uint64_t duration_ticks = 0;  // inside the real allocator
  uint64_t size = 0;            // ALLOC: the block's size; FREE: 0 (the block's is the heap analysis')
  uint32_t stack_id = 0;        // 0 for a free when the agent records no free stacks
  uint16_t thread = 0;          // index into Stream::threads
  uint8_t packed_kind = 0;      // as Event::packed_kind
};

struct SlowCalls {
  std::vector<SlowCall> calls;  // slowest first; of equal ones, the earlier first
  uint64_t calls_timed = 0;     // allocator calls of the range (ALLOC and FREE of the real allocator)
  uint64_t time_ticks = 0;      // their time in the allocator, all together
};

// The `count` slowest allocator calls of `stream` in the frames of `ranges`
// (ascending, disjoint; the events of the game's own allocators, annotate.h,
// take no allocator time), of the sites `keep` keeps (a stack id; an empty
// function keeps all).
SlowCalls FindSlowCalls(const Stream& stream, const std::vector<FrameRange>& ranges, size_t count,
                        const std::function<bool(uint32_t stack_id)>& keep = {});

// "malloc", "calloc", "realloc", "new", "new[]", "free", "delete", "delete[]".
std::string CallName(uint8_t packed_kind);

}  // namespace memframe::analysis
