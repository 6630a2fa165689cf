// Hidden per-frame allocations: the call sites that allocate in most frames
// (analysis::FindHiddenSites), the churn a steady game should not have;
// judged over one steady phase or the range picked, as `memframe report
// hidden` judges them (judged_scope.h), the game's own sites first.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/look_alikes.h"
#include "memframe/analysis/phases.h"
#include "judged_scope.h"
#include "row_filter.h"
#include "view.h"
#include "widgets/name_column.h"
#include "widgets/table_keys.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class HiddenView : public View {
 public:
  const char* name() const override { return "hidden"; }
  const char* title() const override { return "Hidden per-frame allocations"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { has_rows_ = false; }

 private:
  // Recomputes rows_ (and names_) when the inputs changed; true when it did.
  bool Refresh(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, bool rows_changed);
  // Row i's label as the table prints it: the user frame, with the callers
  // and place that tell look-alike rows apart (look_alikes.h).
  SiteLabel RowLabel(ViewContext& ctx, size_t i) const;
  // Every stack of the row's site (one, or the group's: site_groups.h).
  static std::vector<uint32_t> StackIds(ViewContext& ctx, uint32_t stack_id);

  int min_percent_ = 50;  // the CLI's default threshold, 0.5
  JudgedScope scope_;      // what rows_ judge
  int rows_percent_ = -1;
  // The game's own sites (SiteLabel::from_game) lead the table whatever the
  // sort, as in the report.
  bool game_first_ = true;
  bool rows_game_first_ = true;  // game_first_ of the table's order
  bool has_rows_ = false;
  RowFilterKey filter_key_;  // of rows_
  size_t total_rows_ = 0;    // before the row filter
  std::vector<analysis::SiteStats> rows_;
  std::vector<analysis::LookAlikeName> names_;  // per row: what tells rows that print alike apart
  TableOrder order_;
  TableKeys keys_;
  NameColumn name_column_;
  uint32_t selected_stack_ = 0;
  bool has_selection_ = false;
};

}  // namespace memframe::viewer
