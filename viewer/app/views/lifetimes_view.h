// Lifetime advice (analysis::AnalyzeLifetimes): each call site classed by
// how its blocks live (frame, level, pool, long-lived, general) with the
// allocator that would serve it, its capacity and what moving it saves.
// Computed when the tab is first shown, over the steady play of the range
// picked (Selection::PickedRange; the whole capture when none is) unless the
// user asks for every frame (phases.h; computed again when either changes).
// The summary above the table (sites and calls per lifetime, the frame
// arena) is of the classes the class filter keeps, as the table is.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memframe/analysis/lifetimes.h"
#include "row_filter.h"
#include "look_alike_labels.h"
#include "view.h"
#include "widgets/name_column.h"
#include "widgets/table_keys.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class LifetimesView : public View {
 public:
  const char* name() const override { return "lifetimes"; }
  const char* title() const override { return "Lifetime advice"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override {
    report_.reset();
    summary_classes_.reset();
    rows_general_ = !show_general_;  // rebuild the rows
  }

 private:
  const analysis::LifetimeReport& Report(ViewContext& ctx);
  // The summary of the sites the class filter keeps.
  struct Summary {
    uint64_t sites[6] = {}, calls[6] = {};  // by LifetimeClass
    analysis::FrameArenaAdvice frame_arena;
  };
  const Summary& KeptSummary(ViewContext& ctx);
  void DrawClasses(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, bool rows_changed);

  std::optional<analysis::LifetimeReport> report_;
  analysis::JudgedFrames judged_;    // what report_ judged
  bool report_all_frames_ = false;   // Session::judge_all_frames() of report_
  analysis::FrameRange report_range_{};  // the range picked that report_ judged
  Summary summary_;
  std::optional<uint64_t> summary_classes_;  // Session::classes_generation() of summary_; reset with report_
  std::vector<uint32_t> rows_;  // indices into report_->sites that are shown
  bool show_general_ = false;
  bool rows_general_ = true;
  RowFilterKey filter_key_;  // of rows_    // show_general_ the rows were made with (differs at first: build them)
  TableOrder order_;
  TableKeys keys_;
  NameColumn name_column_;
  std::optional<uint32_t> selected_stack_;
  LookAlikeLabels labels_;  // the rows' labels, look-alikes told apart
};

}  // namespace memframe::viewer
