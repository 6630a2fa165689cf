#include "widgets/table_order.h"

#include <algorithm>

namespace memframe::viewer {

const std::vector<uint32_t>& TableOrder::Update(size_t rows, bool rows_changed, const RowCompare& compare,
                                                const RowFirst& first) {
  ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
  bool specs_changed = specs && specs->SpecsDirty;
  if (specs_changed) {
    keys_.clear();
    for (int i = 0; i < specs->SpecsCount; ++i) {
      const ImGuiTableColumnSortSpecs& s = specs->Specs[i];
      keys_.push_back({s.ColumnUserID != 0 ? static_cast<int>(s.ColumnUserID) : s.ColumnIndex,
                       s.SortDirection == ImGuiSortDirection_Descending});
    }
    specs->SpecsDirty = false;
  }
  if (specs_changed || rows_changed || order_.size() != rows) order_ = SortedRowOrder(rows, keys_, compare, first);
  return order_;
}

void TextRight(const char* text) {
  float width = ImGui::CalcTextSize(text).x;
  float avail = ImGui::GetContentRegionAvail().x;
  if (avail > width) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - width);
  ImGui::TextUnformatted(text);
}

void BarCell(float fraction, ImU32 colour, const char* text) {
  ImVec2 pos = ImGui::GetCursorScreenPos();
  float width = ImGui::GetContentRegionAvail().x;
  float height = ImGui::GetTextLineHeight();
  fraction = std::clamp(fraction, 0.0f, 1.0f);
  if (fraction > 0)
    ImGui::GetWindowDrawList()->AddRectFilled(pos, ImVec2(pos.x + std::max(1.0f, width * fraction), pos.y + height),
                                              colour);
  TextRight(text);
}

}  // namespace memframe::viewer
