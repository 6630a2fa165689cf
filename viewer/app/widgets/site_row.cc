#include "widgets/site_row.h"

#include <imgui.h>

#include "style.h"

namespace memframe::viewer {

bool SiteRowLeadingCells(const SiteLabel& label, uint32_t stack_id, bool selected, const std::string& tooltip) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushID(static_cast<int>(stack_id));
  const char* function = label.function.empty() ? "(no stack)" : label.function.c_str();
  bool clicked = ImGui::Selectable(function, selected, ImGuiSelectableFlags_SpanAllColumns);
  if (!tooltip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip.c_str());
  ImGui::PopID();
  ImGui::TableNextColumn();
  ImGui::TextColored(palette::kDimText, "%s", label.location.empty() ? label.module.c_str() : label.location.c_str());
  return clicked;
}

}  // namespace memframe::viewer
