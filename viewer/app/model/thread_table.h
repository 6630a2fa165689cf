// The Threads tab's rows: what each thread did over the range the views
// judge (Selection::PickedRange), and its rates per frame over the judged
// frames of that range (the steady ones, phases.h JudgeFrames, as Hidden and
// Lifetimes judge them: start-up and loads would make every rate a load's).
// No ImGui; the unit tests check it.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/thread_stats.h"

namespace memframe::viewer {

struct ThreadRow {
  analysis::ThreadStats range;  // over the range's frames
  // Per judged frame (0 when no frame is judged).
  double allocations_per_frame = 0;
  double frees_per_frame = 0;
  double bytes_per_frame = 0;
};

struct ThreadTable {
  analysis::FrameRange range;
  analysis::JudgedFrames judged;
  uint64_t alloc_time_ns = 0;   // of every thread over the range
  std::vector<ThreadRow> rows;  // as ThreadReport orders its threads
};

ThreadTable BuildThreadTable(const analysis::ThreadHistory& history, const analysis::FrameTable& frames,
                             analysis::FrameRange range, analysis::JudgedFrames judged);

}  // namespace memframe::viewer
