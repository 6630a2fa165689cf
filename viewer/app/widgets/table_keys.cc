#include "widgets/table_keys.h"

#include <algorithm>

namespace memframe::viewer {

namespace {
bool Pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); }
}  // namespace

std::optional<int> TableKeys::Moved(int current, int rows) {
  moved_to_ = -1;
  const ImGuiIO& io = ImGui::GetIO();
  const bool active = ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) ||
                      ImGui::IsWindowFocused(ImGuiFocusedFlags_ChildWindows);
  if (!active || io.WantTextInput || io.KeyCtrl || rows == 0) return std::nullopt;
  if (Pressed(ImGuiKey_Enter) || Pressed(ImGuiKey_KeyPadEnter)) stack_open_ = true;
  if (Pressed(ImGuiKey_Escape)) stack_open_ = false;
  // A page: the rows the table's window shows.
  const int page = std::max(1, static_cast<int>(ImGui::GetWindowHeight() / ImGui::GetFrameHeightWithSpacing()) - 2);
  int to = current;
  if (Pressed(ImGuiKey_DownArrow)) to = current + 1;
  if (Pressed(ImGuiKey_UpArrow)) to = current - 1;
  if (Pressed(ImGuiKey_PageDown)) to = current + page;
  if (Pressed(ImGuiKey_PageUp)) to = current - page;
  if (Pressed(ImGuiKey_Home)) to = 0;
  if (Pressed(ImGuiKey_End)) to = rows - 1;
  if (to == current) return std::nullopt;
  moved_to_ = std::clamp(to, 0, rows - 1);
  return moved_to_;
}

void TableKeys::Reveal(ImGuiListClipper& clipper) const {
  if (moved_to_ >= 0) clipper.ForceDisplayRangeByIndices(moved_to_, moved_to_ + 1);
}

void TableKeys::AfterRow(int display_index) {
  if (display_index != moved_to_) return;
  ImGui::SetScrollHereY(0.5f);
  moved_to_ = -1;
}

}  // namespace memframe::viewer
