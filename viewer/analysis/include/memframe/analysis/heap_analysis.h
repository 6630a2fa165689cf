// One pass over a stream's events that feeds every heap analysis at once:
// the live set, the per-frame table, the call-site index and the leaks.
#pragma once

#include <cstdint>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/leaks.h"
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

// `progress` (may be empty) hears the kAnalysing phase.
HeapAnalysis AnalyzeHeap(const Stream& stream, const LoadProgressFn& progress = {});

}  // namespace memframe::analysis
