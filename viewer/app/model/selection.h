// What the user picked in the timeline, shared by every view: one frame, and
// two ranges A and B (B is the "after" side of a comparison).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "memframe/analysis/call_sites.h"

namespace memframe::viewer {

struct Selection {
  enum class Focus { kAll, kFrame, kRangeA, kRangeB };

  std::optional<uint64_t> frame;
  std::optional<analysis::FrameRange> range_a;
  std::optional<analysis::FrameRange> range_b;
  // The diff's A or B as a named marker (a snapshot or a game marker)
  // instead of the end of range A or B. Picking a range clears it.
  std::optional<std::string> marker_a;
  std::optional<std::string> marker_b;
  // The most recent pick: the frame detail follows it.
  Focus focus = Focus::kAll;

  void SelectFrame(uint64_t f) {
    frame = f;
    focus = Focus::kFrame;
  }
  void SelectRangeA(analysis::FrameRange r) {
    range_a = r;
    marker_a.reset();
    focus = Focus::kRangeA;
  }
  void SelectRangeB(analysis::FrameRange r) {
    range_b = r;
    marker_b.reset();
    focus = Focus::kRangeB;
  }
  void Clear() { *this = Selection(); }

  // The frames the detail views summarise, inside `all`.
  analysis::FrameRange FocusRange(analysis::FrameRange all) const;
  // "frame 120", "range A: frames 100–199 (100 frames)", "all frames 0–331".
  std::string Describe(analysis::FrameRange all) const;
};

}  // namespace memframe::viewer
