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
#include <functional>
#include <vector>

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

}  // namespace memframe::analysis
