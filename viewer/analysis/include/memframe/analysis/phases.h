// The phases of a run, found from the per-frame table alone: start-up (or
// the attach), each load and unload, the stretches of steady play between
// them, and the teardown after the last ended frame. A game developer reads
// a capture by them: what start-up and each load left behind, what each part
// of play (menu, world map, level) allocates frame after frame.
//
// Every judgement is made against the frames around it, never against the
// whole capture: a game's menu, map and level differ by 10x in allocations
// a frame, and a threshold over all of them fits none.
//
// 1. Candidate frames. Each frame is compared with the frames on either side
//    of it (kBaselineFrames each way): its side baseline is the side whose
//    median is higher, so that the first frame of a busier plateau is judged
//    against that plateau, not against the quiet one before it. A frame is
//    heavy when its allocated bytes (or allocations) exceed the baseline by
//    kHeavyScale * max(MAD, median / 10) and kHeavyRatio times, and the
//    floor (kHeavyFloorBytes, kHeavyFloorAllocations); it grows the heap
//    when its live growth exceeds max(kLoadFloorBytes, live / kLoadLiveDivisor)
//    and its side baseline of growth by the same margin; it drops the heap
//    when the live heap falls by max(kLoadFloorBytes, live / kUnloadLiveDivisor).
// 2. Runs. Candidates at most kHeavyGap frames apart are one run, widened by
//    the frames next to it that allocate or grow above their baseline by the
//    spike rule and kNeighbourFloorBytes (a level's data in one frame, the
//    driver's work for it in the next).
// 3. What a run is, by what it leaves behind once the kSettleFrames frames
//    after it have freed their scratch (the lowest live heap over them): a
//    load when the heap stays above where it was before the run by the load
//    limit (plus the growth its neighbours show anyway); an unload when it
//    stays below by the unload limit; a load too when at least
//    kSustainedFrames of its frames are heavy (a sustained run of heavy
//    allocation) or one of them makes kBurstRatio times the allocations of
//    the frames around it (and at least kHeavyFloorAllocations: a level
//    built of thousands of objects in memory the last one freed), or one of
//    them is a transition: kTransitionRatio times the allocations of the
//    frames on both sides (at least kShortPlateauFrames of each, up to
//    kBaselineFrames), which are at different levels by the plateau rule
//    of step 4 (the frame that builds the next screen); otherwise
//    its frames are spikes of the steady phase they sit in, not a phase (a
//    256 KiB buffer made and dropped in a frame). The run holding the first frame is start-up
//    ("attached" for a capture made by memframe attach).
// 4. Steady play between those phases is cut where the allocation rate
//    changes for good: at a frame where the interquartile means of the
//    kMinPlateauFrames frames before and after differ by kPlateauRatio (with
//    kPlateauPseudoCount added to both, so 0 -> 3 allocations is no change)
//    and by more than either side's interquartile range; the cut is placed
//    where it best separates the two levels. Within kMinPlateauFrames of
//    either end of a plateau, where those windows do not reach, a plateau
//    of kShortPlateauFrames or more is cut off when its level differs by
//    kShortPlateauRatio (a cutscene's first seconds, a menu shown briefly
//    before a level). Other steady phases are at least kMinPlateauFrames
//    long unless loads bound them.
// 5. Spikes: a frame of a steady phase is a spike when it stands out from its
//    own phase (frame_stats.h spike rule over the phase's frames, or its
//    block of them in a long phase) by at least kSpikeFloorAllocations or
//    kSpikeFloorBytes (fewer cannot make a frame late: a marble rolling
//    from 43 to 90 allocations is the game's usual swing), and stands out
//    from its neighbours: kSpikeRatio times the median of the
//    kSpikeNeighbourFrames frames before it and of those after it in its
//    phase, whichever is higher (a stretch of busier frames, a view turning
//    for a second, is the game's swing, not a row of spikes). Other phases have no spikes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/phase.h"

namespace memframe::analysis {

constexpr size_t kBaselineFrames = 30;
constexpr uint64_t kHeavyScale = 8;
constexpr uint64_t kHeavyRatio = 4;
constexpr uint64_t kHeavyFloorBytes = 256 << 10;
constexpr uint64_t kHeavyFloorAllocations = 1000;
constexpr uint64_t kLoadFloorBytes = 256 << 10;
constexpr uint64_t kLoadLiveDivisor = 32;
constexpr uint64_t kUnloadLiveDivisor = 16;
constexpr uint64_t kHeavyGap = 2;
constexpr uint64_t kNeighbourFloorBytes = 16 << 10;
constexpr size_t kSettleFrames = 8;
constexpr size_t kSustainedFrames = 4;
constexpr uint64_t kBurstRatio = 8;
constexpr uint64_t kTransitionRatio = 3;
constexpr size_t kMinPlateauFrames = 30;
constexpr double kPlateauRatio = 1.5;
constexpr uint64_t kPlateauPseudoCount = 8;
constexpr uint64_t kSpikeFloorAllocations = 128;
constexpr uint64_t kSpikeFloorBytes = 64 << 10;
constexpr size_t kSpikeNeighbourFrames = 8;
constexpr size_t kShortPlateauFrames = 8;
constexpr double kShortPlateauRatio = 3;

// In frame order, covering every frame of the table; `attached` names the
// first phase "attached" instead of "start-up". The frame table of a
// capture holds them (FrameTable::phases): use FindPhases.
std::vector<Phase> DetectPhases(const FrameTable& table, bool attached);

// The phases of the table's capture (FrameTable::phases).
inline const std::vector<Phase>& FindPhases(const FrameTable& table) { return table.phases; }

// Whether values[i] (one per frame row) stands far above the values around
// it: step 1's rule for a heavy frame, with `floor` (lifetimes.h finds free
// bursts with it).
bool StandsFarAbove(const std::vector<uint64_t>& values, size_t i, uint64_t floor);

// Marks the spikes of every steady phase of `phases` in table.frames and
// fills each steady phase's thresholds and spike count.
void MarkPhaseSpikes(FrameTable& table, std::vector<Phase>& phases);

// The load that allocated the most bytes, or null when the run has none.
const Phase* LargestLoad(const std::vector<Phase>& phases);

// What the default diff compares (`report diff` with no arguments, the
// viewer's Snapshot diff): the frame before the largest load and its last
// frame; nullopt when the run has no load.
std::optional<std::pair<uint64_t, uint64_t>> LargestLoadDiffFrames(const FrameTable& table);

// The frames of steady play (every steady phase), or empty when there are none.
std::vector<FrameRange> SteadyRanges(const std::vector<Phase>& phases);

// The phase `text` names: its 1-based position in the phases report ("3"),
// or its name ("steady 2", "load 1", "start-up"; "steady-2" and "steady2"
// too). Null with *error saying what exists when nothing matches.
const Phase* FindPhaseByName(const std::vector<Phase>& phases, const std::string& text, std::string* error);

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

}  // namespace memframe::analysis
