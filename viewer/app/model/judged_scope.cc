#include "judged_scope.h"

#include "memframe/analysis/phase_scopes.h"

namespace memframe::viewer {

JudgedScope JudgedScopeOf(const Session& session, const Selection& selection, analysis::FrameRange whole) {
  const analysis::FrameTable& table = session.frames();
  JudgedScope scope;
  if (selection.has_picked_range()) {
    scope.source = JudgedScope::Source::kRangePicked;
    scope.range = selection.PickedRange(session.AllFrames());
    scope.phase = analysis::PhaseOfRange(table, scope.range);
  } else if (const analysis::Phase* longest = analysis::LongestJudgedPhase(table);
             longest && !selection.whole_capture && !session.judge_all_frames()) {
    scope.source = JudgedScope::Source::kLongestPhase;
    scope.range = longest->frames;
    scope.phase = longest;
  } else {
    scope.source = JudgedScope::Source::kWholeCapture;
    scope.range = whole;
  }
  scope.judged = session.Judged(scope.range);
  return scope;
}

nlohmann::json JudgedScopeJson(const JudgedScope& scope) {
  const char* source = scope.source == JudgedScope::Source::kRangePicked    ? "range picked"
                       : scope.source == JudgedScope::Source::kLongestPhase ? "longest steady phase"
                                                                            : "whole capture";
  return {{"source", source}, {"phase", scope.phase ? nlohmann::json(analysis::PhaseName(*scope.phase)) : nullptr}};
}

}  // namespace memframe::viewer
