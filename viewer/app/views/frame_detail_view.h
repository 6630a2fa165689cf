// What the selected frame (or range) allocated: figures, the size histogram
// and the call sites that allocated in it, with the stack of the one
// clicked.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/size_histogram.h"
#include "range_totals.h"
#include "row_filter.h"
#include "look_alike_labels.h"
#include "view.h"
#include "widgets/name_column.h"
#include "widgets/table_keys.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class FrameDetailView : public View {
 public:
  const char* name() const override { return "histogram"; }
  const char* title() const override { return "Frame detail"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { has_range_ = false; }

 private:
  bool Refresh(ViewContext& ctx);  // true when the range changed
  void DrawSummary(ViewContext& ctx);
  void DrawBinsTable(ViewContext& ctx);
  // Every stack of a row when grouped by function, else null.
  static const std::vector<uint32_t>* Members(ViewContext& ctx, uint32_t stack_id);
  void DrawSitesTable(ViewContext& ctx, bool rows_changed);

  bool has_range_ = false;
  RowFilterKey filter_key_;  // of sites_
  size_t total_sites_ = 0;   // before the row filter
  analysis::FrameRange range_{};
  RangeTotals totals_;
  analysis::SizeHistogram histogram_;
  std::vector<analysis::SiteStats> sites_;
  TableOrder order_;
  TableKeys keys_;
  NameColumn name_column_;
  GroupLocations locations_;  // of grouped rows
  uint32_t selected_stack_ = 0;
  bool has_selection_ = false;
  LookAlikeLabels labels_;  // the rows' labels, look-alikes told apart
};

}  // namespace memframe::viewer
