#include "widgets/class_bar.h"

#include <cstdio>

#include <imgui.h>

#include "format.h"
#include "style.h"
#include "widgets/site_row.h"

namespace memframe::viewer {

void ApplyClassOptions(Session& session, const std::vector<analysis::ModuleClassRule>& rules,
                       const analysis::ClassFilter& filter) {
  if (!rules.empty()) session.SetModuleClassRules(rules);
  session.SetClassFilter(filter);
}

void ClassBar::Draw(Session& session, std::vector<analysis::ModuleClassRule>* rules, analysis::ClassFilter* filter) {
  const analysis::ModuleClassTotals& totals = session.TotalsByClass();
  const uint64_t all = totals.all_allocations();
  ImGui::TextColored(palette::kDimText, "Who allocated");
  for (analysis::ModuleClass c : analysis::AllModuleClasses()) {
    const int i = static_cast<int>(c);
    ImGui::SameLine(0, 14);
    bool kept = filter->Keeps(c);
    ImGui::PushStyleColor(ImGuiCol_Text, ModuleClassColour(c));
    char label[64];
    std::snprintf(label, sizeof label, "%s %s##class%d", analysis::ModuleClassName(c),
                  FormatShare(totals.allocations[i], all).c_str(), i);
    if (ImGui::Checkbox(label, &kept)) {
      filter->Set(c, kept);
      session.SetClassFilter(*filter);
    }
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: %s allocations, %s (of every frame)\nUntick to hide its call sites in every view",
                        analysis::ModuleClassName(c), FormatCount(totals.allocations[i]).c_str(),
                        FormatBytes(totals.bytes[i]).c_str());
  }
  if (session.preview()) return;
  ImGui::SameLine(0, 14);
  if (ImGui::SmallButton("Rules\xE2\x80\xA6")) ImGui::OpenPopup("module_class_rules");
  if (ImGui::BeginPopup("module_class_rules")) {
    DrawRuleEditor(session, rules);
    ImGui::EndPopup();
  }
}

void ClassBar::DrawRuleEditor(Session& session, std::vector<analysis::ModuleClassRule>* rules) {
  ImGui::TextUnformatted("Module class rules (first match wins; yours come before the built-in ones)");
  ImGui::TextColored(palette::kDimText, "PATTERN is a glob on the file name, or on the whole path when it holds a '/'");
  int remove = -1;
  for (size_t i = 0; i < rules->size(); ++i) {
    const analysis::ModuleClassRule& r = (*rules)[i];
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton("x")) remove = static_cast<int>(i);
    ImGui::PopID();
    ImGui::SameLine();
    ImGui::Text("%s = %s", r.pattern.c_str(), analysis::ModuleClassName(r.module_class));
  }
  ImGui::SetNextItemWidth(220);
  ImGui::InputTextWithHint("##pattern", "libfmod*.so*", pattern_, sizeof pattern_);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(100);
  ImGui::Combo("##class", &new_class_, "game\0engine\0driver\0system\0");
  ImGui::SameLine();
  bool changed = false;
  if (ImGui::Button("Add") && pattern_[0]) {
    rules->push_back({pattern_, static_cast<analysis::ModuleClass>(new_class_)});
    pattern_[0] = 0;
    changed = true;
  }
  if (remove >= 0) {
    rules->erase(rules->begin() + remove);
    changed = true;
  }
  if (changed) session.SetModuleClassRules(*rules);
}

}  // namespace memframe::viewer
