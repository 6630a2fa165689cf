// Per-frame statistics: what each frame allocated and freed, the live heap
// at its end, time spent inside the allocator, and which frames spiked.
//
// An event belongs to the frame number it carries (FORMAT.md: the agent
// numbers frames from 0 and tags each event with the frame it happened in).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

struct FrameStats {
  uint32_t frame = 0;
  uint64_t allocations = 0;
  uint64_t frees = 0;            // frees of known blocks (and blocks replaced by an ALLOC at their address)
  uint64_t bytes_allocated = 0;
  uint64_t bytes_freed = 0;
  // Live heap bytes once every event of frames 0..frame is applied:
  // live_bytes[i] = live_bytes[i-1] + bytes_allocated[i] - bytes_freed[i].
  uint64_t live_bytes = 0;
  // Highest live total seen while this frame's events were applied (at least
  // the live total the frame started with).
  uint64_t peak_live_bytes = 0;
  // Time inside the real allocator (allocations and frees) and the slowest
  // single such call.
  uint64_t alloc_time_ns = 0;
  uint64_t slowest_alloc_ns = 0;
  bool ended = false;  // a FRAME_END for this frame was seen
  bool spike = false;  // see FrameTable::spike_rule
};

struct SpikeThreshold {
  uint64_t median = 0;
  uint64_t mad = 0;         // median absolute deviation
  uint64_t threshold = 0;   // a value above it is a spike
};

struct FrameTable {
  std::vector<FrameStats> frames;  // index = frame number, 0..last frame any event carried
  uint64_t frames_rendered = 0;    // FRAME_END events
  std::string frame_source;        // marker name of the present entry point, "" if unknown
  // Frames 0..last_complete_frame ended with FRAME_END; meaningless when
  // frames_rendered is 0.
  uint32_t last_complete_frame = 0;
  // Spikes: over the complete frames (at least kMinFramesForSpikes of them),
  // a frame is a spike when its allocation count or its allocated bytes
  // exceed median + 3 * max(MAD, median / 10, 1). The floor keeps perfectly
  // steady games from flagging a one-allocation jitter.
  SpikeThreshold allocation_spike;
  SpikeThreshold bytes_spike;
  // Events whose frame number was beyond kMaxFrames (corrupt data) and were
  // counted in the last frame instead.
  uint64_t clamped_events = 0;
};

constexpr size_t kMinFramesForSpikes = 8;
// More frames than this (77 hours at 60 fps) means a corrupt frame number.
constexpr uint32_t kMaxFrames = 1u << 24;

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

  FrameTable Finish(const Clock& clock, const std::unordered_map<uint32_t, std::string>& markers);

 private:
  struct Accumulator {
    FrameStats stats;
    uint64_t time_ticks = 0;
    uint64_t slowest_ticks = 0;
    bool touched = false;  // at least one event updated the peak
  };
  Accumulator& At(uint32_t frame);
  void AddTime(Accumulator& a, const Event& e);
  void TouchPeak(Accumulator& a, uint64_t live_before, uint64_t live_after);

  std::vector<Accumulator> frames_;
  uint64_t frames_rendered_ = 0;
  uint64_t last_marker_ = 0;
  bool has_marker_ = false;
  uint64_t clamped_events_ = 0;
};

}  // namespace memframe::analysis
