// One pass over a stream's events that feeds every heap analysis at once:
// the live set, the per-frame table, the call-site index and the leaks.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/event_sink.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/leaks.h"
#include "memframe/analysis/live_set.h"
#include "memframe/analysis/live_set_index.h"
#include "memframe/analysis/load_progress.h"

namespace memframe::analysis {

// Events that contradict the live set. The agent never produces them, so
// they point at dropped events or damage.
struct HeapAnomalies {
  uint64_t unknown_frees = 0;      // FREE of an address with no live block (ignored by the statistics)
  // The same in a capture made by memframe attach: blocks allocated before
  // the attach, which memframe never saw (expected, not an error).
  uint64_t freed_before_attach = 0;
  // A custom FREE (annotate.h) of a block its allocator's release (an arena
  // reset, a pool cleared) had already freed: the game kept the block past
  // the release; the Allocators report lists it as outlived.
  uint64_t freed_after_release = 0;
  uint64_t allocs_over_live = 0;   // ALLOC at an address still live: the old block counts as freed
};

struct HeapAnalysis {
  FrameTable frames;
  CallSiteIndex sites;
  LeakReport leaks;
  HeapAnomalies anomalies;
  uint64_t allocations = 0;
  uint64_t frees = 0;  // frees of known blocks
  uint64_t bytes_allocated = 0;
  uint64_t bytes_freed = 0;
  uint64_t peak_live_bytes = 0;
  uint64_t peak_live_frame = 0;  // frame of the event that first reached the peak
  // The live set at any frame without another full replay (diff,
  // fragmentation, the viewer's frame selection).
  LiveSetIndex live_sets;
};

// `progress` (may be empty) hears the kAnalysing phase. Without
// `live_set_index`, HeapAnalysis::live_sets stays empty (what the summary
// needs, at less cost).
HeapAnalysis AnalyzeHeap(const Stream& stream, const LoadProgressFn& progress = {}, bool live_set_index = true);

// The heap analysis fed one event at a time in global order: AnalyzeHeap is
// this over a stream's events; the summary feeds it while reading, without
// holding the events (summary_load.h). Without `live_set_index`, Finish
// leaves HeapAnalysis::live_sets empty (no live set at an earlier frame).
class HeapAccumulator final : public EventSink {
 public:
  explicit HeapAccumulator(bool live_set_index);
  void Push(const Event& e) override;
  uint64_t events() const { return events_; }
  // `stream` gives the clock, the markers and whether the capture starts at
  // an attach; its events are not read.
  HeapAnalysis Finish(const Stream& stream);

 private:
  void CountFree(const Event& e, const LiveBlock& block, uint64_t before);

  HeapAnalysis result_;
  LiveSet live_;
  FrameStatsBuilder frames_;
  CallSiteBuilder sites_;
  bool index_live_sets_;
  LiveSetIndex::Builder live_sets_;
  // Custom blocks a release freed and no allocation reused since.
  std::unordered_set<uint64_t> released_;
  uint64_t frees_of_unknown_blocks_ = 0;
  uint64_t events_ = 0;
};

}  // namespace memframe::analysis
