#include "memframe/analysis/live_set_diff.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace memframe::analysis {

LiveSetDiff DiffLiveSets(const LiveSet& a, const LiveSet& b) {
  std::unordered_map<uint32_t, LiveSetDiffRow> by_stack;
  LiveSetDiff diff;
  for (const auto& [address, block] : a.blocks()) {
    LiveSetDiffRow& row = by_stack[block.stack_id];
    row.blocks_a++;
    row.bytes_a += block.size;
  }
  for (const auto& [address, block] : b.blocks()) {
    LiveSetDiffRow& row = by_stack[block.stack_id];
    row.blocks_b++;
    row.bytes_b += block.size;
  }
  diff.blocks_a = a.live_blocks();
  diff.bytes_a = a.live_bytes();
  diff.blocks_b = b.live_blocks();
  diff.bytes_b = b.live_bytes();
  for (auto& [stack, row] : by_stack) {
    if (row.blocks_a == row.blocks_b && row.bytes_a == row.bytes_b) continue;
    row.stack_id = stack;
    if (row.blocks_a == 0) {
      row.change = LiveSetDiffRow::Change::kNew;
    } else if (row.blocks_b == 0) {
      row.change = LiveSetDiffRow::Change::kGone;
    } else if (row.bytes_b != row.bytes_a) {
      row.change = row.bytes_b > row.bytes_a ? LiveSetDiffRow::Change::kGrew : LiveSetDiffRow::Change::kShrank;
    } else {
      row.change = row.blocks_b > row.blocks_a ? LiveSetDiffRow::Change::kGrew : LiveSetDiffRow::Change::kShrank;
    }
    diff.rows.push_back(row);
  }
  std::sort(diff.rows.begin(), diff.rows.end(), [](const LiveSetDiffRow& x, const LiveSetDiffRow& y) {
    if (std::llabs(x.delta_bytes()) != std::llabs(y.delta_bytes()))
      return std::llabs(x.delta_bytes()) > std::llabs(y.delta_bytes());
    if (std::llabs(x.delta_blocks()) != std::llabs(y.delta_blocks()))
      return std::llabs(x.delta_blocks()) > std::llabs(y.delta_blocks());
    return x.stack_id < y.stack_id;
  });
  return diff;
}

const char* ChangeName(LiveSetDiffRow::Change change) {
  switch (change) {
    case LiveSetDiffRow::Change::kNew: return "new";
    case LiveSetDiffRow::Change::kGrew: return "grew";
    case LiveSetDiffRow::Change::kShrank: return "shrank";
    case LiveSetDiffRow::Change::kGone: return "gone";
  }
  return "?";
}

}  // namespace memframe::analysis
