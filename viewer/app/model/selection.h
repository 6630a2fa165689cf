// What the user picked in the timeline, shared by every view: one frame, and
// two ranges A and B (B is the "after" side of a comparison).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flame.h"
#include "options.h"
#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/frame_stats.h"

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
  // The most recent range pick (kRangeA, kRangeB, or kAll when none): the
  // views that judge many frames follow it, and a frame click leaves it.
  Focus range_focus = Focus::kAll;

  // What every call-site table keeps (row_filter.h): the search text, the
  // size bin clicked in the histogram, and whether sites that differ only
  // in their call's offset inside a function are one row.
  std::string search;
  std::optional<int> size_bin;
  bool group_by_function = false;
  // The flame graph's metric and the function whose callers and callees
  // it lists ("" = none picked yet).
  FlameMetric flame_metric = FlameMetric::kBytes;
  std::string flame_function;
  // The live-memory graph stacks the sites the table filter keeps (search,
  // size bin) on the other sites, instead of by module class.
  bool live_by_filter = false;
  // With no range picked, Hidden and Lifetimes judge every steady phase at
  // once (judged_scope.h) instead of opening on one phase.
  bool whole_capture = false;

  void SelectFrame(uint64_t f) {
    frame = f;
    focus = Focus::kFrame;
  }
  void SelectRangeA(analysis::FrameRange r) {
    range_a = r;
    marker_a.reset();
    focus = range_focus = Focus::kRangeA;
  }
  void SelectRangeB(analysis::FrameRange r) {
    range_b = r;
    marker_b.reset();
    focus = range_focus = Focus::kRangeB;
  }
  // A phase (a timeline phase button, the phase picker, --phase): B is its
  // frames, A the frame before it, so the range views show the phase and
  // the diff what it left behind.
  void SelectPhase(analysis::FrameRange frames, uint64_t frame_before) {
    SelectRangeA({frame_before, frame_before});
    SelectRangeB(frames);
    whole_capture = false;
  }
  void SelectPhase(const analysis::Phase& phase) { SelectPhase(phase.frames, phase.frame_before); }
  // Hidden and Lifetimes judge the whole capture at once instead of one
  // steady phase (the phase picker's last entry): the range picked is let
  // go (the ranges stay drawn, for the diff).
  void JudgeWholeCapture() {
    range_focus = Focus::kAll;
    if (focus == Focus::kRangeA || focus == Focus::kRangeB) focus = Focus::kAll;
    whole_capture = true;
  }
  // Forgets the frames, ranges and markers picked; the table filters and
  // the flame graph's picks stay (they are not a place in the timeline).
  void Clear();
  // The initial picks of the command line (--frame, --range, --phase,
  // --search, ...); `frames` names the phases (options checked by
  // FramePicksProblem).
  void Apply(const ViewerOptions& options, const analysis::FrameTable& frames);

  // The frames the detail views summarise (Frame detail, Flame graph,
  // Fragmentation at its end): the latest pick, a frame or a range, inside `all`.
  analysis::FrameRange FocusRange(analysis::FrameRange all) const;
  // The frames the views that judge many frames take (Hidden, Lifetimes,
  // Threads, Leaks): the latest range picked (--range, --range-b,
  // shift- or ctrl-drag, a phase button) inside `all`; `all` when none is.
  // A single frame clicked is no range to judge: they keep theirs.
  analysis::FrameRange PickedRange(analysis::FrameRange all) const;
  bool has_picked_range() const { return RangeOf(range_focus) != nullptr; }
  // "Frame 120", "Range A: frames 100–199 (100 frames)", "All frames 0–332
  // (332 rendered + frame 332 after the last present)".
  std::string Describe(const analysis::FrameTable& table) const;
  // The same of PickedRange: "Range B: frames 10–20 (11 frames)", "All frames ...".
  std::string DescribePicked(const analysis::FrameTable& table) const;

 private:
  const std::optional<analysis::FrameRange>* RangeOf(Focus f) const;
  std::string Describe(Focus f, const analysis::FrameTable& table) const;
};

}  // namespace memframe::viewer
