#include "memframe/analysis/summary_load.h"

#include <map>
#include <memory>
#include <new>

#include "memframe/analysis/capture_loader.h"

namespace memframe::analysis {

bool LoadSummary(const std::string& path, Capture* capture, HeapAnalysis* heap, std::string* error,
                 const LoadProgressFn& progress, bool* streamed) {
  if (streamed) *streamed = false;
  {
    // One accumulator a stream: which one is the main stream (the most
    // events) is known only at the end.
    std::map<uint32_t, std::unique_ptr<HeapAccumulator>> heaps;
    CaptureBuilder builder(path);
    builder.StreamEventsTo([&heaps](uint32_t stream) {
      auto& h = heaps[stream];
      h = std::make_unique<HeapAccumulator>(/*live_set_index=*/false);
      return h.get();
    });
    if (!LoadCapture(path, builder, capture, error, progress)) return false;
    if (!capture->has_main) return true;
    if (builder.main_streamed_in_order()) {
      try {
        *heap = heaps.at(capture->main.stream_id)->Finish(capture->main);
      } catch (const std::bad_alloc&) {
        *capture = Capture();
        *error = OutOfMemoryError(path);
        return false;
      }
      if (streamed) *streamed = true;
      return true;
    }
  }
  *capture = Capture();
  if (!LoadCapture(path, capture, error, progress)) return false;
  if (capture->has_main) *heap = AnalyzeHeap(capture->main, progress, /*live_set_index=*/false);
  return true;
}

}  // namespace memframe::analysis
