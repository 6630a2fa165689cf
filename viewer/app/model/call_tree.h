// A snapshot diff (analysis::LiveSetDiff, one row per stack) folded into a
// call tree: top-down (outermost caller first, the way the game's code is
// organised) or bottom-up (the allocating function first, the way a
// developer asks "who grew?"). No ImGui: the diff view draws it and the unit
// tests check its sums.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "memframe/analysis/live_set_diff.h"

namespace memframe::viewer {

// One frame of a stack as the tree names it.
struct TreeFrame {
  std::string function;
  std::string location;  // "file.cpp:46", "" when unknown
};

struct CallTreeNode {
  std::string function;  // "" for the root
  std::string location;
  uint32_t parent = 0;
  uint32_t depth = 0;
  std::vector<uint32_t> children;  // by |delta bytes| descending, then name
  uint64_t blocks_a = 0, bytes_a = 0;
  uint64_t blocks_b = 0, bytes_b = 0;
  uint32_t stacks = 0;          // diff rows below this node
  uint32_t first_stack_id = 0;  // one of them (the largest change), for its stack

  int64_t delta_bytes() const { return static_cast<int64_t>(bytes_b) - static_cast<int64_t>(bytes_a); }
  int64_t delta_blocks() const { return static_cast<int64_t>(blocks_b) - static_cast<int64_t>(blocks_a); }
  // The change of the node as a whole, with the diff's rule.
  analysis::LiveSetDiffRow::Change change() const;
};

class CallTree {
 public:
  enum class Order { kTopDown, kBottomUp };
  // The frames of a stack from its user frame outwards (innermost first);
  // frames inside the allocator and the standard library are left out, so
  // bottom-up roots are the game's own functions.
  using StackFrames = std::function<std::vector<TreeFrame>(uint32_t stack_id)>;

  static CallTree Build(const std::vector<analysis::LiveSetDiffRow>& rows, Order order, const StackFrames& frames);

  const CallTreeNode& root() const { return nodes_.front(); }
  const CallTreeNode& node(uint32_t index) const { return nodes_[index]; }
  size_t size() const { return nodes_.size(); }

 private:
  std::vector<CallTreeNode> nodes_;  // [0] is the root: the totals of every row
};

}  // namespace memframe::viewer
