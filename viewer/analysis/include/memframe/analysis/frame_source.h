// Which FRAME_END events are frames. The agent records time-slice
// boundaries (marker "time slice") until a program's first present; they
// are frames only in a capture with no present at all (FORMAT.md).
#pragma once

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

inline constexpr const char* kTimeSliceMarker = "time slice";

// On a stream in global order: drops the time-slice boundaries when the
// program presented, or, when it never did, makes them the frames (each
// event's frame becomes the number of slices before it).
void ResolveFrameSource(Stream& stream);

}  // namespace memframe::analysis
