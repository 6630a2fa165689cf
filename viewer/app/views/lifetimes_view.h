// Lifetime advice (analysis::AnalyzeLifetimes): each call site classed by
// how its blocks live (frame, level, pool, long-lived, general) with the
// allocator that would serve it, its capacity and what moving it saves.
// Computed when the tab is first shown (on a thread of the session's: the
// tab says so meanwhile), over one steady phase or the range picked, as
// `memframe report lifetimes` judges them (judged_scope.h; computed again
// when it changes). The summary above the table (sites and
// calls per lifetime, the frame arena) is of the classes the class filter
// keeps, as the table is. Advice rows are for the code the game can change
// (game and engine classes, site_origin.h OwnedByTheGame); the driver's and
// the system's sites are counted on one line, shown when asked.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "memframe/analysis/lifetimes.h"
#include "judged_scope.h"
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
    report_ = nullptr;
    summary_classes_.reset();
    rows_general_ = !show_general_;  // rebuild the rows
  }

 private:
  // Points report_ at the session's report of the frames the selection
  // asks for (Session::Lifetimes, worked out off the UI thread); false
  // while it is being worked out, unless `wait`.
  bool Refresh(ViewContext& ctx, bool wait);
  const analysis::LifetimeReport& Report() const { return *report_; }
  // The summary of the sites the class filter keeps.
  struct Summary {
    uint64_t sites[6] = {}, calls[6] = {};  // by LifetimeClass
    analysis::FrameArenaAdvice frame_arena;
  };
  const Summary& KeptSummary(ViewContext& ctx);
  // Makes rows_ again when the filters, the toggles or the report changed;
  // true when it did.
  bool RefreshRows(ViewContext& ctx);
  void DrawClasses(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, bool rows_changed);

  // A site of code the user can change.
  static bool Owned(const SiteLabel& label);

  const analysis::LifetimeReport* report_ = nullptr;  // the session's; null while it is worked out
  JudgedScope scope_;  // what report_ judges
  Summary summary_;
  std::optional<uint64_t> summary_classes_;  // Session::classes_generation() of summary_; reset with report_
  std::vector<uint32_t> rows_;  // indices into report_->sites that are shown
  bool show_general_ = false;
  bool rows_general_ = true;  // show_general_ the rows were made with (differs at first: build them)
  bool show_not_owned_ = false;
  bool rows_not_owned_ = false;  // show_not_owned_ of rows_
  size_t not_owned_ = 0;         // sites of rows_' kind left out (or shown) for not being the game's
  RowFilterKey filter_key_;      // of rows_
  TableOrder order_;
  TableKeys keys_;
  NameColumn name_column_;
  std::optional<uint32_t> selected_stack_;
  LookAlikeLabels labels_;  // the rows' labels, look-alikes told apart
};

}  // namespace memframe::viewer
