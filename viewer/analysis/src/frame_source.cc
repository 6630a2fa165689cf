#include "memframe/analysis/frame_source.h"

#include <map>

namespace memframe::analysis {

std::string ResolveFrameSource(Stream& stream) {
  // FRAME_ENDs per entry point (marker id in the event's address).
  std::map<uint64_t, uint64_t> ends;
  for (const Event& e : stream.events)
    if (e.kind() == EventKind::kFrameEnd) ++ends[e.address];
  if (ends.empty()) return "";
  auto name_of = [&](uint64_t id) {
    auto it = stream.markers.find(static_cast<uint32_t>(id));
    return it == stream.markers.end() ? std::string() : it->second;
  };
  // The driver: the present with most frame ends; the slices only if the
  // program never presented. Ties go to the lower id (a fixed order).
  uint64_t driver = 0, best = 0;
  bool found = false;
  for (const auto& [id, count] : ends) {
    if (name_of(id) == kTimeSliceMarker) continue;
    if (!found || count > best) {
      driver = id;
      best = count;
      found = true;
    }
  }
  if (!found) driver = ends.begin()->first;  // only slices

  // One entry point that advanced the agent's counter: its numbers stand.
  if (ends.size() == 1 && found) return name_of(driver);

  // One pass over the (compressed) events: drop the other FRAME_ENDs and
  // renumber the frames.
  uint64_t frame = 0;
  stream.events.Rewrite([&](Event& e) {
    if (e.kind() == EventKind::kFrameEnd && e.address != driver) return false;
    e.frame = frame;
    if (e.kind() == EventKind::kFrameEnd) {
      e.size = frame;
      ++frame;
    }
    return true;
  });
  return name_of(driver);
}

}  // namespace memframe::analysis
