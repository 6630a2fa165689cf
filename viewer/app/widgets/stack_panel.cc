#include "widgets/stack_panel.h"

#include "memframe/analysis/site_origin.h"
#include "memframe/paths.h"
#include "widgets/site_row.h"

#include <string>

#include <imgui.h>

namespace memframe::viewer {

void DrawStackPanel(Session& session, uint32_t stack_id, const Fonts& fonts) {
  const auto& stack = session.Stack(stack_id);
  const SiteLabel& label = session.Label(stack_id);
  ImGui::TextUnformatted(label.name.empty() ? "(no stack)" : label.name.c_str());
  if (!label.location.empty() && label.name.find(label.location) == std::string::npos) {
    ImGui::SameLine();
    ImGui::TextColored(palette::kDimText, "%s", label.location.c_str());
  }
  if (label.has_stack) {
    ImGui::SameLine(0, 16);
    ImGui::TextColored(ModuleClassColour(label.module_class), "%s", analysis::ModuleClassName(label.module_class));
    ImGui::SameLine();
    ImGui::TextColored(palette::kDimText, "%s allocated", label.module.c_str());
  }
  if (stack.empty()) {
    ImGui::TextColored(palette::kDimText, "The agent recorded no stack for these allocations.");
    return;
  }
  const size_t user = analysis::UserFrameIndex(stack);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (fonts.mono) ImGui::PushFont(fonts.mono);
  if (ImGui::BeginTable("stack", 4, flags)) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, 28);
    ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthStretch, 5);
    ImGui::TableSetupColumn("File:line", ImGuiTableColumnFlags_WidthStretch, 3);
    ImGui::TableSetupColumn("Module", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(stack.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const analysis::SourceFrame& f = stack[i];
        bool runtime = analysis::IsRuntimeModule(f.module);
        ImVec4 colour = ImGui::GetStyle().Colors[ImGuiCol_Text];
        if (runtime) colour = palette::kDimText;
        if (static_cast<size_t>(i) == user) colour = ImVec4(1.0f, 0.86f, 0.45f, 1);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(palette::kDimText, "%d", i);
        ImGui::TableNextColumn();
        ImGui::PushStyleColor(ImGuiCol_Text, colour);
        // Cut cells show their whole text when hovered (cut_text.h).
        const float inlined_w = f.inlined ? ImGui::CalcTextSize("(inlined)").x + ImGui::GetStyle().ItemSpacing.x : 0;
        const std::string function = FitRight(f.function, ImGui::GetContentRegionAvail().x - inlined_w);
        ImGui::TextUnformatted(function.c_str());
        if (function != f.function && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.function.c_str());
        if (f.inlined) {
          ImGui::SameLine();
          ImGui::TextColored(palette::kDimText, "(inlined)");
        }
        ImGui::TableNextColumn();
        if (!f.file.empty()) {
          std::string where = Basename(f.file) + (f.line ? ":" + std::to_string(f.line) : "");
          ImGui::TextUnformatted(FitLeft(where, ImGui::GetContentRegionAvail().x).c_str());
          if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s%s", f.file.c_str(), f.line ? (":" + std::to_string(f.line)).c_str() : "");
        }
        ImGui::TableNextColumn();
        TextFitLeft(Basename(f.module), colour);
        ImGui::PopStyleColor();
      }
    }
    ImGui::EndTable();
  }
  if (fonts.mono) ImGui::PopFont();
}

}  // namespace memframe::viewer
