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

#include <string>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

inline constexpr const char* kTimeSliceMarker = "time slice";

// On a stream in global order: keeps the FRAME_ENDs of the driving entry
// point only and, when any were dropped or the frames are time slices,
// renumbers every event's frame as the number of those FRAME_ENDs before it. Returns the driving entry point's name ("" if the
// capture has no FRAME_END at all).
std::string ResolveFrameSource(Stream& stream);

}  // namespace memframe::analysis
