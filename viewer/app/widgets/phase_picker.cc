#include "widgets/phase_picker.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "memframe/analysis/phase_scopes.h"
#include "memframe/report/phase_title.h"
#include "style.h"
#include "widgets/judged_frames_line.h"

namespace memframe::viewer {

namespace {

constexpr const char* kWholeCapture = "Every steady phase at once (the whole capture)";

std::string Preview(const Session& session, const Selection& selection, const JudgedScope& scope) {
  if (scope.phase) return analysis::PhaseTitle(*scope.phase, session.frames());
  if (scope.source == JudgedScope::Source::kRangePicked) return selection.DescribePicked(session.frames());
  return kWholeCapture;
}

// What the pick is, after the combo: why this phase, or which frames of the
// range are judged (a phase's title says its frames).
std::string Note(const JudgedScope& scope) {
  switch (scope.source) {
    case JudgedScope::Source::kLongestPhase:
      return "the longest steady phase; pick another here or on the timeline";
    case JudgedScope::Source::kRangePicked:
      return scope.phase ? "picked here or on the timeline (Clear selection: back to the longest)"
                         : "judging " + JudgedFramesText(scope.judged);
    case JudgedScope::Source::kWholeCapture:
      return "judging " + JudgedFramesText(scope.judged);
  }
  return "";
}

}  // namespace

bool DrawPhasePicker(Session& session, Selection& selection, const JudgedScope& scope) {
  bool changed = false;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Judging");
  ImGui::SameLine();
  const std::string preview = Preview(session, selection, scope);
  ImGui::SetNextItemWidth(std::min(ImGui::CalcTextSize(preview.c_str()).x + 40, ImGui::GetContentRegionAvail().x * 0.6f));
  if (ImGui::BeginCombo("##phase", preview.c_str())) {
    const analysis::FrameTable& table = session.frames();
    for (const analysis::Phase* p : analysis::JudgedPhases(table)) {
      const std::string title = analysis::PhaseTitle(*p, table);
      if (ImGui::Selectable(title.c_str(), scope.phase == p)) {
        selection.SelectPhase(*p);
        changed = true;
      }
    }
    ImGui::Separator();
    if (ImGui::Selectable(kWholeCapture, scope.source == JudgedScope::Source::kWholeCapture)) {
      selection.JudgeWholeCapture();
      changed = true;
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A game's menu, world map and level allocate at their own rates: each is judged on its own "
                      "frames, as `memframe report` does.\nPicking a phase selects it on the timeline (B = its frames, "
                      "A = the frame before), as its button there does.");
  ImGui::SameLine(0, 12);
  ImGui::TextColored(palette::kDimText, "%s", Note(scope).c_str());
  ImGui::SameLine(0, 16);
  return DrawAllFramesToggle(session) || changed;
}

}  // namespace memframe::viewer
