// What the summary prints, read in one pass without holding the events.
//
// The summary (`memframe run`'s, `memframe report [summary]`) renders a
// Capture's description and a HeapAnalysis; it never reads Stream::events
// nor the live set at an earlier frame. So the events go from the file
// through the loader's ordering steps (event_streaming.h) straight into a
// HeapAccumulator, and the capture holds its streams' metadata only
// (Stream::streamed_events counts what went by). The result is the same
// Capture (less its events) and HeapAnalysis (less live_sets) as
// LoadCapture + AnalyzeHeap, whichever way it was made: when the events
// cannot be ordered as they come (event_streaming.h says when), the capture
// is loaded whole instead.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/load_progress.h"

namespace memframe::analysis {

// As LoadCapture (same errors, same damage handling), plus the heap
// analysis of the main stream. *streamed (may be null) says whether one
// pass did it, or the whole load was needed.
bool LoadSummary(const std::string& path, Capture* capture, HeapAnalysis* heap, std::string* error,
                 const LoadProgressFn& progress = {}, bool* streamed = nullptr);

// LoadSummary's one pass fed a record at a time by whoever has the records:
// LoadSummary from the file, `memframe run` as it writes them
// (injector/live_summary.h). Feed builder().Add, then builder().Finish.
class EventPipeline;

class SummaryBuilder {
 public:
  explicit SummaryBuilder(const std::string& path);
  ~SummaryBuilder();
  CaptureBuilder& builder() { return builder_; }
  // After builder().Finish: the heap analysis of `capture`'s main stream;
  // false when its events could not be put in the loader's order as they
  // came (then only the whole load gives the summary).
  bool TakeHeap(const Capture& capture, HeapAnalysis* heap);

 private:
  // One accumulator a stream: which one is the main stream (the most
  // events) is known only at the end.
  std::map<uint32_t, std::unique_ptr<HeapAccumulator>> heaps_;
  // The accumulators run on a thread of their own, the decoding and
  // ordering on the caller's (event_pipeline.h). Declared between the two
  // so that it drains into the accumulators before they go.
  std::unique_ptr<EventPipeline> pipeline_;
  CaptureBuilder builder_;
};

}  // namespace memframe::analysis
