// Which steady phases the reports and views judged by steady play (hidden,
// lifetimes, the summary) answer for one by one (REPORTS.md, "Phases in
// reports"): one definition for `memframe report` and the viewer.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/phase.h"

namespace memframe::analysis {

// A steady phase shorter than this is left out of the per-phase answers
// (three frames between two loads say nothing of a part of the game).
constexpr uint64_t kMinScopeFrames = 8;

// The steady phases of at least kMinScopeFrames frames, in frame order.
std::vector<const Phase*> JudgedPhases(const FrameTable& table);

// The one of them a view opens on: the longest (the part of the run the
// game spent the most frames in: gameplay, more often than not, where the
// first is usually the title menu); the earlier of two as long. Null when
// there is none.
const Phase* LongestJudgedPhase(const FrameTable& table);

// The phase whose frames are `range` exactly, or null.
const Phase* PhaseOfRange(const FrameTable& table, FrameRange range);

}  // namespace memframe::analysis
