// Blocks still live at the end, grouped by allocating stack
// (analysis::CollectLeaks); leaks only when the program exited
// (analysis::ProgramEnd). With a range picked (Selection::PickedRange), only
// the blocks allocated in it: what that stretch of the run left behind. The
// header's totals are of the classes the class filter keeps, as the table.
#pragma once

#include <cstdint>
#include <vector>

#include "row_filter.h"
#include "look_alike_labels.h"
#include "view.h"
#include "widgets/name_column.h"
#include "widgets/table_keys.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

class LeaksView : public View {
 public:
  const char* name() const override { return "leaks"; }
  const char* title() const override { return "Leaks"; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  void OnSessionChanged() override { order_.Invalidate(); }

 private:
  // Rebuilds rows_ when the filters changed; true when it did.
  bool Refresh(ViewContext& ctx);
  void DrawTable(ViewContext& ctx, bool rows_changed);

  TableOrder order_;
  TableKeys keys_;
  NameColumn name_column_;
  GroupLocations locations_;  // of grouped rows
  uint32_t selected_stack_ = 0;
  bool has_selection_ = false;
  std::vector<analysis::LeakSite> rows_;  // the leak sites the row filter keeps (summed by function when grouped)
  std::vector<std::vector<uint32_t>> members_;  // per row, its stacks
  bool has_rows_ = false;
  RowFilterKey filter_key_;  // of rows_
  analysis::FrameRange range_{};  // of rows_
  // The leaks of range_ of the classes kept (the header's figures).
  uint64_t kept_blocks_ = 0, kept_bytes_ = 0;
  size_t kept_sites_ = 0;
  LookAlikeLabels labels_;  // the rows' labels, look-alikes told apart
};

}  // namespace memframe::viewer
