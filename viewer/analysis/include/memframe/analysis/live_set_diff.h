// Two live heaps compared call stack by call stack: what a phase of the game
// (a level load, a menu, a fight) left behind, and what it released.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

struct LiveSetDiffRow {
  enum class Change { kNew, kGrew, kShrank, kGone };
  uint32_t stack_id = 0;
  uint64_t blocks_a = 0, bytes_a = 0;
  uint64_t blocks_b = 0, bytes_b = 0;
  Change change = Change::kNew;
  int64_t delta_bytes() const { return static_cast<int64_t>(bytes_b) - static_cast<int64_t>(bytes_a); }
  int64_t delta_blocks() const { return static_cast<int64_t>(blocks_b) - static_cast<int64_t>(blocks_a); }
};

struct LiveSetDiff {
  uint64_t blocks_a = 0, bytes_a = 0;
  uint64_t blocks_b = 0, bytes_b = 0;
  // Only stacks whose blocks or bytes differ. kNew: nothing live at A;
  // kGone: nothing live at B; otherwise kGrew / kShrank by bytes (by blocks
  // when the bytes are equal). Sorted by |delta bytes|, then |delta
  // blocks| (descending), then stack id.
  std::vector<LiveSetDiffRow> rows;
};

LiveSetDiff DiffLiveSets(const LiveSet& a, const LiveSet& b);

const char* ChangeName(LiveSetDiffRow::Change change);  // "new", "grew", "shrank", "gone"

}  // namespace memframe::analysis
