#include "memframe/analysis/frame_source.h"

namespace memframe::analysis {

FrameSourceChoice ChooseFrameSource(const std::map<uint64_t, uint64_t>& ends,
                                    const std::unordered_map<uint32_t, std::string>& markers) {
  if (ends.empty()) return {};
  auto name_of = [&](uint64_t id) {
    auto it = markers.find(static_cast<uint32_t>(id));
    return it == markers.end() ? std::string() : it->second;
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
  return {name_of(driver), driver, !(ends.size() == 1 && found)};
}

std::string ResolveFrameSource(Stream& stream) {
  // FRAME_ENDs per entry point (marker id in the event's address).
  std::map<uint64_t, uint64_t> ends;
  for (const Event& e : stream.events)
    if (e.kind() == EventKind::kFrameEnd) ++ends[e.address];
  const FrameSourceChoice choice = ChooseFrameSource(ends, stream.markers);
  if (!choice.renumber) return choice.name;
  // One pass over the (compressed) events: drop the other FRAME_ENDs and
  // renumber the frames.
  FrameRenumber renumber(choice.driver);
  stream.events.Rewrite([&](Event& e) { return renumber.Apply(e); });
  return choice.name;
}

}  // namespace memframe::analysis
