// The live heap at any frame without replaying the whole capture.
//
// The pass that replays the heap once (AnalyzeHeap) also records:
//   - checkpoints: a copy of the live set at some event positions, taken at
//     most every max(kMinCheckpointEvents, kCheckpointCostFactor * live
//     blocks) events, so that rebuilding a checkpoint (one insert per live
//     block) and replaying from it cost about the same, and the copies stay
//     a small fraction of the events' own memory (they are compressed like
//     the events: ALLOC events in an EventStore);
//   - a frame index: for each frame that occurs (sorted by number, not
//     indexed by it: frame_range.h), the position just past the last event
//     of that frame or an earlier one, and for each checkpoint the highest
//     frame before it.
//
// "The live set at the end of frame F" is the one live_set_at.h defines:
// every ALLOC and FREE whose frame is <= F, applied in global order (its
// total is FrameStats::live_bytes of F). A query starts from the last
// checkpoint that holds only such events and replays from there to the end
// of F, skipping later frames' events that a straggling thread interleaved.
// The answer is the same as a replay from the first event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/event_store.h"
#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

class LiveSetIndex {
  struct Checkpoint {
    uint64_t position = 0;   // events applied
    uint64_t max_frame = 0;  // highest frame among them
    EventStore blocks;       // one ALLOC event per live block, by address
  };

 public:
  static constexpr uint64_t kMinCheckpointEvents = 1u << 20;
  static constexpr uint64_t kCheckpointCostFactor = 8;

  // Fed by the heap replay: call Before() for every event, in global order,
  // with the live set as it is before the event is applied; then Finish().
  class Builder {
   public:
    // `min_interval`: fewest events between checkpoints (tests lower it).
    explicit Builder(uint64_t min_interval = kMinCheckpointEvents) : min_interval_(min_interval) {}
    void Before(const Event& event, const LiveSet& live);
    LiveSetIndex Finish();

   private:
    FrameRows<uint64_t> frame_end_;  // per frame: 1 + index of its last event
    std::vector<Checkpoint> checkpoints_;
    uint64_t position_ = 0;
    uint64_t since_checkpoint_ = 0;
    uint64_t max_frame_ = 0;
    uint64_t min_interval_;
  };

  // Builds the index with a replay of its own (AnalyzeHeap builds it as a
  // side effect; use this when no HeapAnalysis is at hand).
  static LiveSetIndex Build(const Stream& stream, uint64_t min_interval = kMinCheckpointEvents);

  // The live set once every ALLOC and FREE of frames <= frame is applied
  // (a frame past the last one gives the live set at the end, one in a gap
  // the live set at the end of the frame before it).
  LiveSet AtFrame(const Stream& stream, uint64_t frame) const;
  // The live set after the first `position` events (a prefix of the
  // global order, e.g. up to a MARKER event).
  LiveSet AtPosition(const Stream& stream, uint64_t position) const;

  size_t checkpoint_count() const { return checkpoints_.size(); }
  // Bytes held by the checkpoints and the frame index.
  size_t memory_bytes() const;

 private:
  // Last checkpoint at or before `position` whose events all have a frame
  // <= max_frame; null for "start from nothing".
  const Checkpoint* Before(uint64_t position, uint64_t max_frame) const;
  static LiveSet Restore(const Checkpoint* checkpoint);

  // Sorted by frame: (frame, position just past the last event of it or of
  // an earlier frame).
  std::vector<std::pair<uint64_t, uint64_t>> frame_end_;
  std::vector<Checkpoint> checkpoints_;
};

}  // namespace memframe::analysis
