#include "widgets/site_row.h"

#include "memframe/analysis/look_alikes.h"
#include "style.h"

namespace memframe::viewer {

void SetupSiteColumns(float location_width) {
  ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Location", ImGuiTableColumnFlags_WidthFixed, location_width);
  ImGui::TableSetupColumn("Module", ImGuiTableColumnFlags_WidthFixed, 170);
}

ImVec4 ModuleClassColour(analysis::ModuleClass c) {
  switch (c) {
    case analysis::ModuleClass::kGame: return ImVec4(0.45f, 0.85f, 0.50f, 1);
    case analysis::ModuleClass::kEngine: return ImVec4(0.45f, 0.70f, 1.0f, 1);
    case analysis::ModuleClass::kDriver: return ImVec4(1.0f, 0.62f, 0.30f, 1);
    case analysis::ModuleClass::kSystem: return palette::kDimText;
  }
  return palette::kDimText;
}

void TextFitLeft(const std::string& text, const ImVec4& colour) {
  const float width = ImGui::GetContentRegionAvail().x;
  std::string shown = text;
  // Cut a character at a time: a cell holds a few dozen.
  for (size_t chars = text.size(); chars > 4 && ImGui::CalcTextSize(shown.c_str()).x > width; --chars)
    shown = analysis::CutFromLeft(text, chars - 1);
  ImGui::TextColored(colour, "%s", shown.c_str());
  if (shown != text && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

bool SiteRowLeadingCells(const SiteLabel& label, uint32_t stack_id, bool selected, const std::string& tooltip) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  const float cell_width = ImGui::GetContentRegionAvail().x;
  ImGui::PushID(static_cast<int>(stack_id));
  const char* name = label.name.empty() ? "(no stack)" : label.name.c_str();
  bool clicked = ImGui::Selectable(name, selected, ImGuiSelectableFlags_SpanAllColumns);
  if (ImGui::IsItemHovered()) {
    if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
    else if (ImGui::CalcTextSize(name).x > cell_width) ImGui::SetTooltip("%s", name);
  }
  ImGui::PopID();
  ImGui::TableNextColumn();
  TextFitLeft(label.location, palette::kDimText);  // the module has its own column
  ImGui::TableNextColumn();
  if (label.has_stack) {
    ImGui::TextColored(ModuleClassColour(label.module_class), "%s", analysis::ModuleClassName(label.module_class));
    ImGui::SameLine();
    TextFitLeft(label.module, palette::kDimText);
  }
  return clicked;
}

int CompareModules(const SiteLabel& a, const SiteLabel& b) {
  if (a.module_class != b.module_class) return a.module_class < b.module_class ? -1 : 1;
  return a.module.compare(b.module);
}

}  // namespace memframe::viewer
