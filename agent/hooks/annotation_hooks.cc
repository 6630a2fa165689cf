// The annotation API of include/memframe/annotate.h: defined here, strong,
// so a game's weak references find them when the agent is loaded.
#include "capture/recorder.h"
#include "hooks/tracked_call.h"
#include "memframe.pb.h"
#include "memframe/format.h"

using namespace memframe::agent;

MEMFRAME_EXPORT void memframe_frame_mark(void) { AnnotatedFrameMark(); }

MEMFRAME_EXPORT void memframe_marker(const char* name) {
  RecursionGuard guard;
  if (!guard.acquired() || !Recording()) return;
  RecordMarker(guard, name);
}

namespace {
using memframe::wire::PackKind;
constexpr uint32_t kCustomAlloc =
    PackKind(memframe::wire::EVENT_ALLOC, memframe::wire::FAMILY_MALLOC, memframe::wire::kFlagCustom);
constexpr uint32_t kCustomFree =
    PackKind(memframe::wire::EVENT_FREE, memframe::wire::FAMILY_MALLOC, memframe::wire::kFlagCustom);
}  // namespace

// The game's own allocator: recorded at the call, with no time inside an
// allocator (the game's allocator already ran).
MEMFRAME_EXPORT void memframe_custom_alloc(const void* block, unsigned long size) {
  if (!block) return;
  RecursionGuard guard;
  if (!guard.acquired() || !ShouldRecord()) return;
  RecordAlloc(guard, block, size, kCustomAlloc, OrderedTicks(), 0);
}

MEMFRAME_EXPORT void memframe_custom_free(const void* block) {
  if (!block) return;
  RecursionGuard guard;
  if (!guard.acquired() || !ShouldRecord()) return;
  RecordFree(guard, block, 0, kCustomFree, OrderedTicks(), 0);
}
