// ImGui glue for sortable tables: re-sort only when the sort specs (or the
// rows) change, and a few cell helpers that keep numeric columns aligned.
#pragma once

#include <cstdint>
#include <vector>

#include <imgui.h>

#include "table_sort.h"

namespace memframe::viewer {

class TableOrder {
 public:
  // Call between BeginTable and the first row. Returns the display order,
  // sorted again only when the user changed the sort or `rows_changed`;
  // the rows `first` holds for lead (SortedRowOrder).
  const std::vector<uint32_t>& Update(size_t rows, bool rows_changed, const RowCompare& compare,
                                      const RowFirst& first = nullptr);
  const std::vector<uint32_t>& order() const { return order_; }
  // The rows changed behind the table's back (a refreshed session): the
  // next Update sorts again with the same keys.
  void Invalidate() { order_.clear(); }

 private:
  std::vector<uint32_t> order_;
  std::vector<SortKey> keys_;
};

// Right-aligned text in the current table cell (numbers line up by digit).
void TextRight(const char* text);
// A horizontal bar filling `fraction` of the cell, behind right-aligned text.
void BarCell(float fraction, ImU32 colour, const char* text);

}  // namespace memframe::viewer
