#include "widgets/site_row.h"

#include "memframe/analysis/look_alikes.h"
#include "style.h"

namespace memframe::viewer {

void SetupSiteColumns(float location_width) {
  ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Location", ImGuiTableColumnFlags_WidthFixed, location_width);
  ImGui::TableSetupColumn("Module", ImGuiTableColumnFlags_WidthFixed, 170);
  ImGui::TableSetupColumn("Thread", ImGuiTableColumnFlags_WidthFixed, 110);
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

bool SiteRowLeadingCells(const SiteLabel& label, const std::string& thread, uint32_t stack_id, bool selected,
                         const std::string& tooltip) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushID(static_cast<int>(stack_id));
  bool clicked = SelectableFitRight(label.name.empty() ? "(no stack)" : label.name, selected,
                                    ImGuiSelectableFlags_SpanAllColumns, tooltip);
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
