#include "call_tree.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace memframe::viewer {

analysis::LiveSetDiffRow::Change CallTreeNode::change() const {
  using Change = analysis::LiveSetDiffRow::Change;
  if (blocks_a == 0 && bytes_a == 0) return Change::kNew;
  if (blocks_b == 0 && bytes_b == 0) return Change::kGone;
  if (bytes_b != bytes_a) return bytes_b > bytes_a ? Change::kGrew : Change::kShrank;
  return blocks_b >= blocks_a ? Change::kGrew : Change::kShrank;
}

CallTree CallTree::Build(const std::vector<analysis::LiveSetDiffRow>& rows, Order order, const StackFrames& frames) {
  CallTree tree;
  tree.nodes_.emplace_back();
  // Children by (function, location) while building: one map per node.
  std::vector<std::map<std::pair<std::string, std::string>, uint32_t>> index(1);
  auto add = [](CallTreeNode& n, const analysis::LiveSetDiffRow& row) {
    n.blocks_a += row.blocks_a;
    n.bytes_a += row.bytes_a;
    n.blocks_b += row.blocks_b;
    n.bytes_b += row.bytes_b;
    if (n.stacks++ == 0) n.first_stack_id = row.stack_id;  // rows come largest change first
  };
  for (const analysis::LiveSetDiffRow& row : rows) {
    std::vector<TreeFrame> stack = frames(row.stack_id);
    if (stack.empty()) stack.push_back({"(no stack)", ""});
    if (order == Order::kTopDown) std::reverse(stack.begin(), stack.end());
    uint32_t at = 0;
    add(tree.nodes_[0], row);
    for (TreeFrame& f : stack) {
      auto key = std::make_pair(f.function, f.location);
      auto it = index[at].find(key);
      uint32_t child;
      if (it != index[at].end()) {
        child = it->second;
      } else {
        child = static_cast<uint32_t>(tree.nodes_.size());
        CallTreeNode n;
        n.function = std::move(f.function);
        n.location = std::move(f.location);
        n.parent = at;
        n.depth = tree.nodes_[at].depth + 1;
        tree.nodes_.push_back(std::move(n));
        index.emplace_back();
        index[at].emplace(std::move(key), child);
        tree.nodes_[at].children.push_back(child);
      }
      add(tree.nodes_[child], row);
      at = child;
    }
  }
  for (CallTreeNode& n : tree.nodes_) {
    std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
      const CallTreeNode& x = tree.nodes_[a];
      const CallTreeNode& y = tree.nodes_[b];
      if (std::llabs(x.delta_bytes()) != std::llabs(y.delta_bytes()))
        return std::llabs(x.delta_bytes()) > std::llabs(y.delta_bytes());
      return x.function < y.function;
    });
  }
  return tree;
}

}  // namespace memframe::viewer
