// The global order of a stream's events: a k-way merge of per-thread runs.
//
// Each thread's events arrive in the thread's own order with ticks that
// never decrease (the decoder raises a tick that went backwards), so the
// global order is a merge by (ticks, arrival): an event of an earlier-arrived
// batch goes first on equal ticks. That is exactly what a stable sort by
// ticks of all events in arrival order gives, without holding them all
// decoded at once; then clock races on blocks handed between threads are
// undone (handoff_repair.h).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "memframe/analysis/event_sink.h"
#include "memframe/analysis/event_store.h"

namespace memframe::analysis {

// One thread's events, in its own order, and where each of its batches
// starts (for the arrival tie-break).
struct ThreadRun {
  struct BatchStart {
    uint64_t first_event = 0;  // index into `events`
    uint64_t arrival = 0;      // the batch's number among all batches of the stream
  };
  EventStore events;
  std::vector<BatchStart> batches;
};

// Called with (events merged, events in all) every so many events.
using MergeProgress = std::function<void(uint64_t done, uint64_t total)>;

// What the merge changed of the tick order (handoff_repair.h).
struct MergeStats {
  uint64_t handoffs_repaired = 0;
};

// Merges the runs into one store in global order, clock races between
// threads undone (handoff_repair.h). The runs are consumed:
// their chunks are freed as the merge passes them, so the peak memory is one
// copy of the events plus one decoded chunk per thread.
EventStore MergeThreadRuns(std::vector<ThreadRun>& runs, const MergeProgress& progress, MergeStats* stats = nullptr);

// The same order while the batches are still arriving, for a reader that
// never holds the whole stream (summary_load.h): an event is let out into
// `out` once it is `margin_ticks` older than the newest event read, or
// sooner, oldest first, while more than `max_pending` events wait (a fast
// game fills the margin with millions of events). The agent's writer drains
// every thread's ring every 0.2-2 ms, so long before either each thread has
// sent its events of that time, and the order is final. Should a batch
// still hold an event older than one already let out (a thread kept from
// its ring for that long), the order could no longer be the merge's:
// failed() says so, and the reader loads the stream whole; never another
// order.
class StreamingMerge {
 public:
  StreamingMerge(EventSink* out, uint64_t max_pending, uint64_t margin_ticks)
      : out_(out), max_pending_(max_pending), margin_ticks_(margin_ticks) {}

  // One batch of `thread` (its events in its own order) that arrived
  // `arrival`-th among the stream's batches.
  void AddBatch(uint16_t thread, const std::vector<Event>& events, uint64_t arrival);
  // Lets out every event still waiting.
  void Finish();

  bool failed() const { return failed_; }

 private:
  struct Pending {
    Event event;
    uint64_t arrival;
  };
  struct ThreadQueue {
    std::deque<Pending> events;
  };
  // The head of a thread's waiting events. Each thread with events waiting
  // has one in heads_, so the earliest is found in log(threads), not by a
  // scan of every thread (quadratic in a capture of 100,000 threads).
  struct Head {
    uint64_t ticks;
    uint64_t arrival;
    uint16_t thread;
  };
  struct HeadAfter {
    bool operator()(const Head& a, const Head& b) const {
      return a.ticks != b.ticks ? a.ticks > b.ticks : a.arrival > b.arrival;
    }
  };

  // Lets out, in (ticks, arrival) order, every waiting event below `limit`,
  // and then more while over `keep` events wait.
  void LetOutBelow(uint64_t limit, uint64_t keep);
  void Fail();

  EventSink* out_;
  uint64_t max_pending_;
  uint64_t margin_ticks_;
  std::vector<ThreadQueue> threads_;
  std::priority_queue<Head, std::vector<Head>, HeadAfter> heads_;
  uint64_t pending_ = 0;
  uint64_t latest_let_out_ = 0;  // ticks of the last event let out
  uint64_t newest_read_ = 0;     // the highest ticks of any batch
  bool failed_ = false;
};

}  // namespace memframe::analysis
