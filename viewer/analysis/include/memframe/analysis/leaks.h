// Blocks still live when the capture ends, grouped by allocating stack.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/live_set.h"

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

}  // namespace memframe::analysis
