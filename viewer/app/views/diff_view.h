// Snapshot diff: the live heap at the end of range A against the live heap
// at the end of range B (the timeline's shift-drag and ctrl-drag), as a call
// tree, top-down or bottom-up, with what grew, shrank, is new or is gone.
// Recomputed only when A or B changes.
#pragma once

#include <cstdint>
#include <optional>

#include "call_tree.h"
#include "memframe/analysis/live_set_diff.h"
#include "view.h"

namespace memframe::viewer {

class DiffView : public View {
 public:
  const char* name() const override { return "diff"; }
  const char* title() const override { return "Snapshot diff"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override {
    has_diff_ = false;
    trees_[0].reset();
    trees_[1].reset();
  }

 private:
  // The two frames whose ends are compared, from the selection or the
  // default (DefaultDiffRanges).
  static std::pair<uint64_t, uint64_t> Frames(ViewContext& ctx);
  void Refresh(ViewContext& ctx);
  const CallTree& Tree(ViewContext& ctx);
  void DrawSummary();
  void DrawTree(ViewContext& ctx);
  void DrawNode(const CallTree& tree, uint32_t index);

  bool has_diff_ = false;
  uint64_t frame_a_ = 0, frame_b_ = 0;
  analysis::LiveSetDiff diff_;
  CallTree::Order order_ = CallTree::Order::kBottomUp;
  std::optional<CallTree> trees_[2];  // by Order, built on first use
  std::optional<uint32_t> selected_stack_;
  uint32_t selected_node_ = 0;
};

}  // namespace memframe::viewer
