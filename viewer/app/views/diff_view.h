// Snapshot diff: the live heap at the end of range A against the live heap
// at the end of range B (the timeline's shift-drag and ctrl-drag), as a call
// tree, top-down or bottom-up, with what grew, shrank, is new or is gone.
// Recomputed only when A or B changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "call_tree.h"
#include "memframe/analysis/live_set_diff.h"
#include "row_filter.h"
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
  // A or B at `marker` (resolved by the analysis' ResolveCut) or else at the
  // end of `frame`; a marker that does not resolve sets error_.
  analysis::LiveSetCut CutOf(ViewContext& ctx, const std::optional<std::string>& marker, uint64_t frame);
  const CallTree& Tree(ViewContext& ctx);
  void DrawSummary(ViewContext& ctx);
  // "A: [end of range A | marker name ...]"
  void DrawCutPicker(ViewContext& ctx, const char* label, bool is_a);
  void DrawTree(ViewContext& ctx);
  void DrawNode(const CallTree& tree, uint32_t index);

  bool has_diff_ = false;
  RowFilterKey filter_key_;  // of diff_.rows
  size_t total_rows_ = 0;    // stacks before the row filter
  uint64_t frame_a_ = 0, frame_b_ = 0;            // the ranges' ends, the cuts when no marker is picked
  std::optional<std::string> marker_a_, marker_b_;  // as in the selection when the diff was made
  analysis::LiveSetCut cut_a_, cut_b_;
  std::string error_;
  analysis::LiveSetDiff diff_;
  CallTree::Order order_ = CallTree::Order::kBottomUp;
  std::optional<CallTree> trees_[2];  // by Order, built on first use
  std::optional<uint32_t> selected_stack_;
  uint32_t selected_node_ = 0;
};

}  // namespace memframe::viewer
