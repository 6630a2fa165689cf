// Which FRAME_END events are frames.
//
// The agent ends a frame at every outermost present, whatever the entry
// point, and records time-slice boundaries (marker "time slice") until the
// first present (FORMAT.md). A game's frames are its main present call:
// GLFW also swaps once inside glfwCreateWindow, a launcher may present a
// splash through another API. So the frames are the FRAME_ENDs of the entry
// point that ended the most frames; the others (and the slices) are dropped
// and their events belong to the frame around them. Time slices are the
// frames only in a capture with no present at all.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

inline constexpr const char* kTimeSliceMarker = "time slice";

// On a stream in global order: keeps the FRAME_ENDs of the driving entry
// point only and, when any were dropped or the frames are time slices,
// renumbers every event's frame as the number of those FRAME_ENDs before it. Returns the driving entry point's name ("" if the
// capture has no FRAME_END at all).
std::string ResolveFrameSource(Stream& stream);

// ResolveFrameSource in parts, for a reader that sees each event once
// (summary_load.h): the choice from the FRAME_ENDs per entry point (marker
// id), and the renumbering of one event.
struct FrameSourceChoice {
  std::string name;       // the driving entry point's name, "" without FRAME_ENDs
  uint64_t driver = 0;    // its marker id
  bool renumber = false;  // false: the agent's numbers stand
};
FrameSourceChoice ChooseFrameSource(const std::map<uint64_t, uint64_t>& ends,
                                    const std::unordered_map<uint32_t, std::string>& markers);

class FrameRenumber {
 public:
  explicit FrameRenumber(uint64_t driver) : driver_(driver) {}
  // False for a FRAME_END to drop; else sets e's frame.
  bool Apply(Event& e) {
    if (e.kind() == EventKind::kFrameEnd && e.address != driver_) return false;
    e.frame = frame_;
    if (e.kind() == EventKind::kFrameEnd) {
      e.size = frame_;
      ++frame_;
    }
    return true;
  }

 private:
  uint64_t driver_;
  uint64_t frame_ = 0;
};

}  // namespace memframe::analysis
