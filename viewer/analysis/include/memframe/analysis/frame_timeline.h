// Frames, markers and phases placed in time, for the trace exports
// (chrome-json, perfetto): the frame table says what each frame did, this
// says when it ran and on which thread it presented.
//
// A frame runs from the end of the frame before it (the first frame: from
// the stream's first event) to its FRAME_END, or to its last event when it
// never ended (the teardown). Times are CLOCK_MONOTONIC nanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/phases.h"

namespace memframe::analysis {

struct FrameSpan {
  uint64_t frame = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;          // >= start_ns
  uint32_t tid = 0;            // the thread that presented it (FRAME_END); the presenting thread otherwise
  uint64_t mapped_bytes = 0;   // anonymous mappings live at its end (mapped_regions.h)
};

struct TimelineMarker {
  std::string name;
  uint64_t frame = 0;
  int64_t ns = 0;
  uint32_t tid = 0;
  uint64_t position = 0;  // index in the global order (live_set_at.h)
};

struct TimelinePhase {
  Phase phase;
  int64_t start_ns = 0;  // the start of its first frame
  int64_t end_ns = 0;    // the end of its last frame
};

struct Timeline {
  std::vector<FrameSpan> frames;  // one per FrameTable row, same order
  std::vector<TimelineMarker> markers;
  std::vector<TimelinePhase> phases;
  // The thread that ended most frames (the stream's first thread when none
  // ended): where frames and phases go.
  uint32_t presenting_tid = 0;
};

Timeline BuildTimeline(const Stream& stream, const FrameTable& table);

}  // namespace memframe::analysis
