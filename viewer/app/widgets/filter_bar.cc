#include "widgets/filter_bar.h"

#include <cstdio>

#include <imgui.h>

#include "format.h"
#include "style.h"

namespace memframe::viewer {

void DrawFilterBar(Selection& selection, bool can_group, size_t shown, size_t total) {
  // ImGui edits a char buffer; the Selection's string is the one truth.
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, "%s", selection.search.c_str());
  ImGui::SetNextItemWidth(340);
  // Ctrl+F: search (GLFW key codes are ASCII for letters).
  if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('F', false)) ImGui::SetKeyboardFocusHere();
  if (ImGui::InputTextWithHint("##search", "search function or its callers, module, file (Ctrl+F)", buffer, sizeof buffer))
    selection.search = buffer;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Keeps the sites whose function, module or file:line holds the text, and those any\n"
                      "function that led to them does: a game function finds the driver's and the\n"
                      "engine's allocations it made happen");
  if (!selection.search.empty()) {
    ImGui::SameLine(0, 4);
    if (ImGui::SmallButton("x##clear_search")) selection.search.clear();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Clear the search");
  }
  if (selection.size_bin) {
    ImGui::SameLine(0, 16);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::kBytes), "sizes %s", FormatSizeBin(*selection.size_bin).c_str());
    ImGui::SameLine(0, 4);
    if (ImGui::SmallButton("x##clear_size")) selection.size_bin.reset();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show every size again (the histogram bin clicked in Frame detail)");
  }
  if (can_group) {
    ImGui::SameLine(0, 16);
    ImGui::Checkbox("Group by function", &selection.group_by_function);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("One row for the sites of a function called from the same place\n(they differ only in the call's offset)");
  }
  ImGui::SameLine(0, 16);
  if (shown == total) ImGui::TextColored(palette::kDimText, "%zu rows", total);
  else ImGui::TextColored(palette::kDimText, "%zu of %zu rows", shown, total);
}

}  // namespace memframe::viewer
