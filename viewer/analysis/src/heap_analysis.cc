#include "memframe/analysis/heap_analysis.h"

namespace memframe::analysis {

HeapAccumulator::HeapAccumulator(bool live_set_index) : index_live_sets_(live_set_index) {}

void HeapAccumulator::CountFree(const Event& e, const LiveBlock& block, uint64_t before) {
  result_.frees++;
  result_.bytes_freed += block.size;
  frames_.OnFree(e, block.size, before, live_.live_bytes());
}

void HeapAccumulator::Push(const Event& e) {
  ++events_;
  if (index_live_sets_) live_sets_.Before(e, live_);
  switch (e.kind()) {
    case EventKind::kAlloc: {
      uint64_t before = live_.live_bytes();
      LiveBlock replaced;
      if (live_.Alloc(e, &replaced)) {
        // Account the lost free first so that the frame sees the old block
        // go and the new one come.
        result_.anomalies.allocs_over_live++;
        uint64_t after_free = before - replaced.size;
        result_.frees++;
        result_.bytes_freed += replaced.size;
        frames_.OnFree(e, replaced.size, before, after_free);
        before = after_free;
      }
      if (e.is_custom() && !released_.empty()) released_.erase(e.address);
      result_.allocations++;
      result_.bytes_allocated += e.size;
      frames_.OnAlloc(e, before, live_.live_bytes());
      sites_.OnAlloc(e);
      if (live_.live_bytes() > result_.peak_live_bytes) {
        result_.peak_live_bytes = live_.live_bytes();
        result_.peak_live_frame = e.frame;
      }
      break;
    }
    case EventKind::kFree: {
      uint64_t before = live_.live_bytes();
      LiveBlock freed;
      if (live_.Free(e.address, &freed)) {
        CountFree(e, freed, before);
        if (e.is_released()) released_.insert(e.address);
      } else if (e.is_custom() && released_.erase(e.address)) {
        result_.anomalies.freed_after_release++;
        frames_.OnUnknownFree(e);
      } else {
        frees_of_unknown_blocks_++;
        frames_.OnUnknownFree(e);
      }
      break;
    }
    case EventKind::kFrameEnd:
      frames_.OnFrameEnd(e);
      break;
    case EventKind::kMap:  // anonymous mappings are not heap blocks; a later view shows them
    case EventKind::kUnmap:
    case EventKind::kMarker:
    case EventKind::kAllocatorRelease:
    case EventKind::kNone:
      break;
  }
}

HeapAnalysis HeapAccumulator::Finish(const Stream& stream) {
  (stream.process.attached ? result_.anomalies.freed_before_attach : result_.anomalies.unknown_frees) =
      frees_of_unknown_blocks_;
  result_.frames = frames_.Finish(stream.clock, stream.markers, stream.process.attached);
  result_.sites = sites_.Finish();
  result_.leaks = CollectLeaks(live_);
  if (index_live_sets_) result_.live_sets = live_sets_.Finish();
  return std::move(result_);
}

HeapAnalysis AnalyzeHeap(const Stream& stream, const LoadProgressFn& progress, bool live_set_index) {
  HeapAccumulator heap(live_set_index);
  const uint64_t total = stream.events.size();
  uint64_t done = 0;
  for (const Event& e : stream.events) {
    if (progress && ++done % (1u << 20) == 0) progress({LoadProgress::Phase::kAnalysing, done, total});
    heap.Push(e);
  }
  HeapAnalysis result = heap.Finish(stream);
  if (progress) progress({LoadProgress::Phase::kDone, 0, 0});
  return result;
}

}  // namespace memframe::analysis
