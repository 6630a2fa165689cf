#include "widgets/site_row.h"

#include "memframe/analysis/look_alikes.h"
#include "style.h"

namespace memframe::viewer {

void SetupSiteColumns() {
  // Weights: the name half of the text, its location, module and thread the
  // rest (each cut from the left, whole in a tooltip).
  ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthStretch, 3.2f);
  ImGui::TableSetupColumn("Location", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("Module", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("Thread", ImGuiTableColumnFlags_WidthStretch, 0.8f);
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

bool SiteRowLeadingCells(NameColumn& names, const SiteLabel& label, const std::string& thread, uint32_t stack_id,
                         bool selected, const std::string& tooltip) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushID(static_cast<int>(stack_id));
  const std::string& name = label.name.empty() ? std::string("(no stack)") : label.name;
  const std::string& shown = names.Cut(name);
  const bool clicked = ImGui::Selectable(shown.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns);
  if (ImGui::IsItemHovered()) {
    if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
    else if (shown != name) ImGui::SetTooltip("%s", name.c_str());
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
  ImGui::TableNextColumn();
  TextFitLeft(thread, palette::kDimText);
  return clicked;
}

int CompareModules(const SiteLabel& a, const SiteLabel& b) {
  if (a.module_class != b.module_class) return a.module_class < b.module_class ? -1 : 1;
  return a.module.compare(b.module);
}

}  // namespace memframe::viewer
