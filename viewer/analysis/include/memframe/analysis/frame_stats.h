// Per-frame statistics: what each frame allocated and freed, the live heap
// at its end, time spent inside the allocator, and which frames spiked.
//
// An event belongs to the frame number it carries (FORMAT.md: the agent
// numbers frames from 0 and tags each event with the frame it happened in).
// The table has a row for each frame that occurs, not for each number up to
// the last one (frame_range.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/phase.h"

namespace memframe::analysis {

struct FrameStats {
  uint64_t frame = 0;
  uint64_t allocations = 0;
  uint64_t frees = 0;            // frees of known blocks (and blocks replaced by an ALLOC at their address)
  uint64_t bytes_allocated = 0;
  uint64_t bytes_freed = 0;
  // Live heap bytes once every event of frames up to this one is applied:
  // row i's live_bytes = row i-1's + bytes_allocated - bytes_freed.
  uint64_t live_bytes = 0;
  // Highest live total seen while this frame's events were applied (at least
  // the live total the frame started with).
  uint64_t peak_live_bytes = 0;
  // Time inside the real allocator (allocations and frees) and the slowest
  // single such call.
  uint64_t alloc_time_ns = 0;
  uint64_t slowest_alloc_ns = 0;
  bool ended = false;  // a FRAME_END for this frame was seen
  bool spike = false;  // spikes in allocations or in bytes against its steady phase (phases.h)
  bool allocations_spike = false;  // its allocation count alone spikes
  bool bytes_spike = false;        // its allocated bytes alone spike
};

struct FrameTable {
  // One row per frame that occurs (an event carries its number, or a
  // FRAME_END names it), by frame number. Rows are not indexed by frame
  // number: use Find, RowsIn, CountIn.
  std::vector<FrameStats> frames;
  uint64_t frames_rendered = 0;    // FRAME_END events
  std::string frame_source;        // marker name of the present entry point, "" if unknown
  // The frames up to last_complete_frame ended with FRAME_END; meaningless
  // when frames_rendered is 0.
  uint64_t last_complete_frame = 0;
  // memframe attach: the first phase is the attach, not start-up.
  bool attached = false;
  // The phases the frames were cut into (phases.h), in frame order; the
  // spike flags of the rows are judged against their own steady phase.
  std::vector<Phase> phases;

  // The row of `frame`, or null when the capture has no such frame.
  const FrameStats* Find(uint64_t frame) const;
  // First row whose frame is >= `frame` (frames.size() if none).
  size_t LowerBound(uint64_t frame) const;
  // The rows of the frames in `range`: [first, second) into `frames`.
  std::pair<size_t, size_t> RowsIn(FrameRange range) const;
  // How many of the capture's frames are in `range`.
  uint64_t CountIn(FrameRange range) const;
  // First to last frame; {0, 0} when there is none.
  FrameRange All() const;
  // The frames that ended (first frame .. last_complete_frame), or All()
  // when no frame ended.
  FrameRange Complete() const;
};

// The spike rule over `values` (not empty): a spike is above all of
// median + kSpikeScale * max(MAD, median / 10, 1), Tukey's far-out fence
// (q3 + kSpikeScale * IQR) and kSpikeRatio times the median: far out of the
// phase's usual swing, and a frame that at least doubles a usual one. The
// median and MAD also make the local baselines of loads (phases.h).
SpikeThreshold ComputeSpikeThreshold(const std::vector<uint64_t>& values);

constexpr uint64_t kSpikeScale = 3;
constexpr uint64_t kSpikeRatio = 2;
constexpr size_t kMinFramesForSpikes = 8;
// A steady phase longer than three blocks judges each frame against its
// block and the blocks either side (a level that gets busier as it goes).
constexpr size_t kSpikeBlock = 256;
// Whether spikes are judged against the frames around them (more complete
// frames than three blocks) or against the whole capture.
inline bool SpikesJudgedLocally(uint64_t complete_frames) { return complete_frames > 3 * kSpikeBlock; }

// "frames A..B", or "N frames between A and B" when the numbers have gaps:
// what a message about a frame the capture does not have names.
std::string DescribeFrames(const FrameTable& table);

// Fed one event at a time, in global order, by AnalyzeHeap.
class FrameStatsBuilder {
 public:
  // `live_before` / `live_after`: the live heap total around the event.
  void OnAlloc(const Event& e, uint64_t live_before, uint64_t live_after);
  // `freed_bytes` is the size of the block the event released.
  void OnFree(const Event& e, uint64_t freed_bytes, uint64_t live_before, uint64_t live_after);
  // A FREE of no live block: only its time counts.
  void OnUnknownFree(const Event& e);
  void OnFrameEnd(const Event& e);

  // `attached`: the capture starts at memframe attach (FrameTable::attached).
  FrameTable Finish(const Clock& clock, const std::unordered_map<uint32_t, std::string>& markers, bool attached);

 private:
  struct Accumulator {
    FrameStats stats;
    uint64_t time_ticks = 0;
    uint64_t slowest_ticks = 0;
    bool touched = false;  // at least one event updated the peak
  };
  Accumulator& At(uint64_t frame) { return frames_.At(frame); }
  void AddTime(Accumulator& a, const Event& e);
  void TouchPeak(Accumulator& a, uint64_t live_before, uint64_t live_after);

  FrameRows<Accumulator> frames_;
  uint64_t frames_rendered_ = 0;
  uint64_t last_marker_ = 0;
  bool has_marker_ = false;
};

}  // namespace memframe::analysis
