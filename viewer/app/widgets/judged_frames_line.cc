#include "widgets/judged_frames_line.h"

#include <string>

#include <imgui.h>

#include "format.h"
#include "style.h"
#include "view_json.h"

namespace memframe::viewer {

std::string JudgedFramesText(const analysis::JudgedFrames& judged) {
  std::string text = judged.steady_only ? "the steady frames " : "frames ";
  text += analysis::JudgedRangesText(judged) + " (" + FormatCount(judged.count) +
          (judged.count == 1 ? " frame)" : " frames)");
  if (judged.steady_only) {
    text += ": start-up and loads are left out";
  } else if (!judged.all_frames_asked) {
    text += ": no steady play found";
  }
  return text;
}

bool DrawAllFramesToggle(Session& session) {
  bool all = session.judge_all_frames();
  if (!ImGui::Checkbox("All frames", &all)) return false;
  session.SetJudgeAllFrames(all);
  return true;
}

bool DrawJudgedFramesLine(Session& session, const Selection& selection, const analysis::JudgedFrames& judged) {
  // The range first: it is what a click in the timeline changes.
  std::string text = selection.has_picked_range() ? selection.DescribePicked(session.frames()) + ": judging "
                                                   : "Judging ";
  text += JudgedFramesText(judged);
  ImGui::TextColored(palette::kDimText, "%s", text.c_str());
  ImGui::SameLine(0, 16);
  return DrawAllFramesToggle(session);
}

}  // namespace memframe::viewer
