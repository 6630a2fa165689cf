// What Hidden and Lifetimes answer for, as `memframe report hidden` and
// `lifetimes` do (REPORTS.md, "Phases in reports"): a game's menu, world map
// and level allocate at rates tenfold apart, so they are judged apart, never
// pooled unless asked. The range picked (--range, a drag, a phase button,
// the phase picker, --phase) when there is one; else the longest steady
// phase (phase_scopes.h); else, when asked (the picker's last entry, or
// "All frames" as --all-frames) or when no steady phase is long enough, the
// whole capture at once.
#pragma once

#include <nlohmann/json.hpp>

#include "memframe/analysis/phases.h"
#include "selection.h"
#include "session.h"

namespace memframe::viewer {

struct JudgedScope {
  enum class Source { kRangePicked, kLongestPhase, kWholeCapture };
  Source source = Source::kWholeCapture;
  // The phase whose frames `range` is exactly (picked or opened on), else
  // null. Points into the session's frame table.
  const analysis::Phase* phase = nullptr;
  analysis::FrameRange range;
  analysis::JudgedFrames judged;  // the frames of `range` the rules judge (Session::Judged)

  // Same source, frames and judging: the rows need not be made again.
  bool operator==(const JudgedScope& other) const {
    return source == other.source && range == other.range &&
           judged.all_frames_asked == other.judged.all_frames_asked;
  }
};

// `whole`: the frames the view takes for the whole capture (Hidden the
// ended frames, as the report; Lifetimes every frame).
JudgedScope JudgedScopeOf(const Session& session, const Selection& selection, analysis::FrameRange whole);

// {"source": "range picked" | "longest steady phase" | "whole capture",
//  "phase": "steady 4" | null} for --dump-view-data.
nlohmann::json JudgedScopeJson(const JudgedScope& scope);

}  // namespace memframe::viewer
