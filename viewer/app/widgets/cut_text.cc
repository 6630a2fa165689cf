#include "widgets/cut_text.h"

#include "memframe/analysis/look_alikes.h"

namespace memframe::viewer {

std::string FitRight(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
  // Halve the search: names can be hundreds of characters (templates).
  size_t lo = 0, hi = text.size();
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    std::string candidate = text.substr(0, mid) + "...";
    if (ImGui::CalcTextSize(candidate.c_str()).x <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.substr(0, lo) + "...";
}

std::string FitLeft(const std::string& text, float width) {
  std::string shown = text;
  // Cut a character at a time: a location or module is a few dozen.
  for (size_t chars = text.size(); chars > 4 && ImGui::CalcTextSize(shown.c_str()).x > width; --chars)
    shown = analysis::CutFromLeft(text, chars - 1);
  return shown;
}

void TextFitLeft(const std::string& text, const ImVec4& colour) {
  const std::string shown = FitLeft(text, ImGui::GetContentRegionAvail().x);
  ImGui::TextColored(colour, "%s", shown.c_str());
  if (shown != text && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

void TextFitRight(const std::string& text, const ImVec4& colour) {
  const std::string shown = FitRight(text, ImGui::GetContentRegionAvail().x);
  ImGui::TextColored(colour, "%s", shown.c_str());
  if (shown != text && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

bool SelectableFitRight(const std::string& text, bool selected, ImGuiSelectableFlags flags, const std::string& tooltip) {
  const std::string shown = FitRight(text, ImGui::GetContentRegionAvail().x);
  // The id is the whole text: two rows cut alike stay apart.
  ImGui::PushID(text.c_str());
  const bool clicked = ImGui::Selectable(shown.c_str(), selected, flags);
  ImGui::PopID();
  if (ImGui::IsItemHovered()) {
    if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
    else if (shown != text) ImGui::SetTooltip("%s", text.c_str());
  }
  return clicked;
}

}  // namespace memframe::viewer
