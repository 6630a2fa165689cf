// The annotation API of include/memframe/annotate.h: defined here, strong,
// so a game's weak references find them when the agent is loaded.
#include "capture/recorder.h"
#include "hooks/tracked_call.h"

using namespace memframe::agent;

MEMFRAME_EXPORT void memframe_frame_mark(void) { AnnotatedFrameMark(); }

MEMFRAME_EXPORT void memframe_marker(const char* name) {
  RecursionGuard guard;
  if (!guard.acquired() || !Recording()) return;
  RecordMarker(guard, name);
}
