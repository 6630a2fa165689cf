// The loader's half of EVENT_ALLOCATOR_RELEASE: right after each release
// it puts a custom FREE (flagged wire::kFlagReleased) of every block the
// release frees, so that every pass (live memory, leaks, lifetimes,
// fragmentation) sees those blocks end there without knowing about
// allocators.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/event_sink.h"

namespace memframe::analysis {

// Rewrites stream->events in place of the old store (the old chunks are
// freed as they are read). Does nothing for a stream without releases.
void ExpandAllocatorReleases(Stream* stream);

// The same one event at a time, in global order, into `out`: for a reader
// that never holds the stream (summary_load.h). Without a release it passes
// every event through unchanged.
class ReleaseExpander final : public EventSink {
 public:
  ReleaseExpander(const std::vector<AllocatorInfo>* allocators, EventSink* out)
      : allocators_(allocators), out_(out) {}
  void Push(const Event& e) override;
  // Whether an event was looked up in the allocator table: a streaming
  // reader checks the table did not change afterwards.
  bool used_table() const { return used_table_; }

 private:
  const std::vector<AllocatorInfo>* allocators_;
  EventSink* out_;
  // The live custom blocks of each allocator, by address (a release frees
  // those at its mark and above).
  std::map<uint32_t, std::set<uint64_t>> live_;
  bool used_table_ = false;
};

}  // namespace memframe::analysis
