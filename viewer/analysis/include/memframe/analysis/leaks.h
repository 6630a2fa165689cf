// Blocks still live when the capture ends, grouped by allocating stack.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/live_set.h"
#include "memframe/analysis/site_groups.h"

namespace memframe::analysis {

struct LeakSite {
  uint32_t stack_id = 0;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
};

struct LeakReport {
  uint64_t total_blocks = 0;
  uint64_t total_bytes = 0;
  std::vector<LeakSite> sites;  // by bytes, then blocks (descending), then stack id
};

LeakReport CollectLeaks(const LiveSet& live);
// Only the blocks allocated in frames of `allocated_in`: what a stretch of
// the run (a load, a phase) left live at the end.
LeakReport CollectLeaks(const LiveSet& live, FrameRange allocated_in);

// The leak sites as a developer sees them: stacks of one site group
// (site_groups.h: the same user stack, different paths inside a library) are
// one site, under the group's representative stack id. Totals are unchanged.
LeakReport GroupLeaks(const LeakReport& leaks, const GroupedSites& groups);

}  // namespace memframe::analysis
