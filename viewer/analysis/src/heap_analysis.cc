#include "memframe/analysis/heap_analysis.h"

#include <unordered_set>

#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

HeapAnalysis AnalyzeHeap(const Stream& stream, const LoadProgressFn& progress) {
  HeapAnalysis result;
  LiveSet live;
  FrameStatsBuilder frames;
  CallSiteBuilder sites;
  LiveSetIndex::Builder live_sets;
  const uint64_t total = stream.events.size();
  uint64_t done = 0;
  // Custom blocks a release freed and no allocation reused since.
  std::unordered_set<uint64_t> released;

  auto note_peak = [&](const Event& e) {
    if (live.live_bytes() > result.peak_live_bytes) {
      result.peak_live_bytes = live.live_bytes();
      result.peak_live_frame = e.frame;
    }
  };
  auto count_free = [&](const Event& e, const LiveBlock& block, uint64_t before) {
    result.frees++;
    result.bytes_freed += block.size;
    frames.OnFree(e, block.size, before, live.live_bytes());
  };

  for (const Event& e : stream.events) {
    if (progress && ++done % (1u << 20) == 0) progress({LoadProgress::Phase::kAnalysing, done, total});
    live_sets.Before(e, live);
    switch (e.kind()) {
      case EventKind::kAlloc: {
        uint64_t before = live.live_bytes();
        LiveBlock replaced;
        if (live.Alloc(e, &replaced)) {
          // Account the lost free first so that the frame sees the old block
          // go and the new one come.
          result.anomalies.allocs_over_live++;
          uint64_t after_free = before - replaced.size;
          result.frees++;
          result.bytes_freed += replaced.size;
          frames.OnFree(e, replaced.size, before, after_free);
          before = after_free;
        }
        if (e.is_custom() && !released.empty()) released.erase(e.address);
        result.allocations++;
        result.bytes_allocated += e.size;
        frames.OnAlloc(e, before, live.live_bytes());
        sites.OnAlloc(e);
        note_peak(e);
        break;
      }
      case EventKind::kFree: {
        uint64_t before = live.live_bytes();
        LiveBlock freed;
        if (live.Free(e.address, &freed)) {
          count_free(e, freed, before);
          if (e.is_released()) released.insert(e.address);
        } else if (e.is_custom() && released.erase(e.address)) {
          result.anomalies.freed_after_release++;
          frames.OnUnknownFree(e);
        } else {
          (stream.process.attached ? result.anomalies.freed_before_attach : result.anomalies.unknown_frees)++;
          frames.OnUnknownFree(e);
        }
        break;
      }
      case EventKind::kFrameEnd:
        frames.OnFrameEnd(e);
        break;
      case EventKind::kMap:  // anonymous mappings are not heap blocks; a later view shows them
      case EventKind::kUnmap:
      case EventKind::kMarker:
      case EventKind::kAllocatorRelease:
      case EventKind::kNone:
        break;
    }
  }
  result.frames = frames.Finish(stream.clock, stream.markers);
  result.sites = sites.Finish();
  result.leaks = CollectLeaks(live);
  result.live_sets = live_sets.Finish();
  if (progress) progress({LoadProgress::Phase::kDone, 0, 0});
  return result;
}

}  // namespace memframe::analysis
