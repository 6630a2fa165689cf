#include "memframe/analysis/summary_load.h"

#include <new>

#include "event_pipeline.h"

namespace memframe::analysis {

SummaryBuilder::SummaryBuilder(const std::string& path)
    : pipeline_(std::make_unique<EventPipeline>()), builder_(path) {
  builder_.StreamEventsTo([this](uint32_t stream) {
    auto& h = heaps_[stream];
    h = std::make_unique<HeapAccumulator>(/*live_set_index=*/false);
    return pipeline_->Front(h.get());
  });
}

SummaryBuilder::~SummaryBuilder() = default;

bool SummaryBuilder::TakeHeap(const Capture& capture, HeapAnalysis* heap) {
  if (!capture.has_main || !builder_.main_streamed_in_order()) return false;
  auto it = heaps_.find(capture.main.stream_id);
  if (it == heaps_.end()) return false;
  pipeline_->Drain();
  *heap = it->second->Finish(capture.main);
  heaps_.clear();
  return true;
}

bool LoadSummary(const std::string& path, Capture* capture, HeapAnalysis* heap, std::string* error,
                 const LoadProgressFn& progress, bool* streamed) {
  if (streamed) *streamed = false;
  {
    SummaryBuilder summary(path);
    if (!LoadCapture(path, summary.builder(), capture, error, progress)) return false;
    if (!capture->has_main) return true;
    try {
      if (summary.TakeHeap(*capture, heap)) {
        if (streamed) *streamed = true;
        return true;
      }
    } catch (const std::bad_alloc&) {
      *capture = Capture();
      *error = OutOfMemoryError(path);
      return false;
    }
  }
  *capture = Capture();
  if (!LoadCapture(path, capture, error, progress)) return false;
  if (capture->has_main) *heap = AnalyzeHeap(capture->main, progress, /*live_set_index=*/false);
  return true;
}

}  // namespace memframe::analysis
