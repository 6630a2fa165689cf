// The phases of a run, found from the per-frame table alone: start-up, each
// load, steady play between them, and the teardown after the last ended
// frame. A game developer reads a capture by them: what start-up and each
// load left behind, what steady play allocates frame after frame.
//
// A frame is heavy when what it allocated, or how much the live heap grew in
// it, stands far above the steady state: above
//   median + kHeavyScale * max(MAD, median / 10), kHeavyRatio * median and
//   kHeavyFloorBytes
// over the ended frames (the frames report's spike rule, frame_stats.h, with
// a wider margin, a ratio and a floor: a driver that allocates twice its
// usual bytes every few seconds is a spike, not a load); growth must also
// exceed 1/kHeavyGrowthDivisor of the live heap before the frame (a game
// idling in its menu with 32 MiB live grows a few hundred KiB now and then).
// Heavy frames no more than kHeavyGap frames apart form one run, and a run
// takes in the frames next to it (within kHeavyGap) that are spikes by the
// frames report's own rule, in allocated bytes or in live growth, of at
// least kNeighbourFloorBytes: a level's
// data loaded in one frame and the driver's work for it in the next are one
// load, however small the level's part. Frame 0 is
// heavy by definition (it holds everything the game did before its first
// present): its run is start-up, every later run is a load, and the frames
// between are steady play.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/frame_stats.h"

namespace memframe::analysis {

constexpr uint64_t kHeavyScale = 8;
constexpr uint64_t kHeavyRatio = 4;
constexpr uint64_t kHeavyGrowthDivisor = 16;
constexpr uint64_t kHeavyFloorBytes = 256 << 10;
constexpr uint64_t kHeavyGap = 2;
constexpr uint64_t kNeighbourFloorBytes = 16 << 10;

enum class PhaseKind { kStartup, kLoad, kSteady, kTeardown };

struct Phase {
  PhaseKind kind = PhaseKind::kSteady;
  FrameRange frames;
  uint64_t allocations = 0;
  uint64_t bytes_allocated = 0;
  uint64_t bytes_freed = 0;
  uint64_t frame_before = 0;  // the frame before the phase (numbers may have gaps); the first phase: its own first
  uint64_t live_before = 0;   // live heap at the end of frame_before (0 for the first phase)
  uint64_t live_after = 0;   // live heap at the end of its last frame
};

// In frame order, covering every frame of the table.
std::vector<Phase> FindPhases(const FrameTable& table);

// The load that allocated the most bytes, or null when the run has none.
const Phase* LargestLoad(const std::vector<Phase>& phases);

// What the default diff compares (`report diff` with no arguments, the
// viewer's Snapshot diff): the frame before the largest load and its last
// frame; nullopt when the run has no load.
std::optional<std::pair<uint64_t, uint64_t>> LargestLoadDiffFrames(const FrameTable& table);

// The frames of steady play (every steady phase), or empty when there are none.
std::vector<FrameRange> SteadyRanges(const std::vector<Phase>& phases);

// The frames judged by the reports whose rules assume steady play (hidden,
// lifetimes): start-up and loads are not play (Neverball's start-up compiles
// shaders: a quarter of a million blocks freed in the frame that made them,
// which is no per-frame churn). By default the steady frames within
// `within`; every frame of `within` when `all_frames` is asked for
// (--all-frames, the views' toggle) or none of them is steady.
struct JudgedFrames {
  std::vector<FrameRange> ranges;  // ascending, disjoint; within `within`
  uint64_t count = 0;              // frames of the capture in them
  bool steady_only = false;        // false: every frame of `within`
  bool all_frames_asked = false;   // steady_only is false because all frames were asked for
};
JudgedFrames JudgeFrames(const FrameTable& table, FrameRange within, bool all_frames);

// The judged ranges as text, "1..11, 14..25, 27..39", at most `shown` of
// them and then ", ... (N stretches)".
std::string JudgedRangesText(const JudgedFrames& judged, size_t shown = 8);

// Whether `frame` is in one of `ranges` (ascending, disjoint).
bool InRanges(const std::vector<FrameRange>& ranges, uint64_t frame);

const char* PhaseKindName(PhaseKind kind);  // "start-up", "load", "steady", "teardown"

}  // namespace memframe::analysis
