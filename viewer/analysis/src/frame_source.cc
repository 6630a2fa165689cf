#include "memframe/analysis/frame_source.h"

#include <algorithm>

namespace memframe::analysis {

void ResolveFrameSource(Stream& stream) {
  uint64_t slice_marker = 0;
  bool has_slice_marker = false;
  for (const auto& [id, name] : stream.markers) {
    if (name == kTimeSliceMarker) {
      slice_marker = id;
      has_slice_marker = true;
    }
  }
  if (!has_slice_marker) return;
  auto is_slice = [&](const Event& e) { return e.kind() == EventKind::kFrameEnd && e.address == slice_marker; };
  bool presented = std::any_of(stream.events.begin(), stream.events.end(), [&](const Event& e) {
    return e.kind() == EventKind::kFrameEnd && !is_slice(e);
  });
  if (presented) {
    stream.events.erase(std::remove_if(stream.events.begin(), stream.events.end(), is_slice), stream.events.end());
    return;
  }
  // No present: the slices are the frames.
  uint32_t frame = 0;
  for (Event& e : stream.events) {
    e.frame = frame;
    if (is_slice(e)) {
      e.size = frame;
      ++frame;
    }
  }
}

}  // namespace memframe::analysis
