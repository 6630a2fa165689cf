// A stream's events in the loader's global order, passed on while the
// capture is read instead of stored (StreamBuilder::StreamEventsTo): the
// same steps as StreamBuilder::Finish, each one event at a time:
//
//   batches -> StreamingMerge -> HandoffRepair -> ReleaseExpander
//           -> frame source (FrameSpeculation) -> out
//
// Two of Finish's steps need the whole stream: the choice of the frame
// source (which entry point ended most frames) and the allocator table.
// Here both are guessed from what came first and checked at the end;
// `failed()` says when a guess (or the merge, thread_merge.h) was wrong or
// the stream holds what cannot be streamed (recorder snapshots), and the
// reader must then load the capture whole. Never a different answer.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allocator_release.h"
#include "handoff_repair.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/event_sink.h"
#include "memframe/analysis/frame_source.h"
#include "thread_merge.h"

namespace memframe::analysis {

// ResolveFrameSource on the fly: events wait until one entry point has
// ended two frames (or until `max_waiting`), then the frames are taken as
// the agent numbered them if that entry point is the only one seen so far,
// else renumbered after it. Finish checks the guess against the choice the
// whole stream gives.
class FrameSpeculation final : public EventSink {
 public:
  FrameSpeculation(const Stream* stream, EventSink* out, uint64_t max_waiting)
      : stream_(stream), out_(out), max_waiting_(max_waiting) {}
  void Push(const Event& e) override;
  // False when the guess differs from ChooseFrameSource's.
  bool Finish();
  uint64_t events_out() const { return events_out_; }

 private:
  void Decide(const FrameSourceChoice& choice);
  void Forward(Event e);

  const Stream* stream_;
  EventSink* out_;
  uint64_t max_waiting_;
  std::map<uint64_t, uint64_t> ends_;  // FRAME_ENDs per entry point
  std::deque<Event> waiting_;
  std::optional<FrameSourceChoice> guess_;
  std::optional<FrameRenumber> renumber_;
  uint64_t events_out_ = 0;
};

class EventStreaming {
 public:
  // `stream` is the builder's, still filling: its markers and allocators
  // are read as the events go out.
  EventStreaming(const Stream* stream, EventSink* out);
  void AddBatch(uint16_t thread, const std::vector<Event>& events, uint64_t arrival) {
    merge_.AddBatch(thread, events, arrival);
  }
  // An AllocatorDefs packet: harmless unless an event already read the table.
  void AllocatorsChanged() { allocators_changed_after_use_ = allocators_changed_after_use_ || expander_.used_table(); }
  void RecorderSnapshots() { snapshots_ = true; }
  // Lets out the rest; false when the events that went out are not the
  // loader's (the caller loads the capture whole).
  bool Finish(uint64_t* handoffs_repaired, uint64_t* events_out);
  bool failed() const { return merge_.failed(); }

 private:
  FrameSpeculation frames_;
  ReleaseExpander expander_;
  HandoffRepair repair_;
  StreamingMerge merge_;
  bool allocators_changed_after_use_ = false;
  bool snapshots_ = false;
};

}  // namespace memframe::analysis
