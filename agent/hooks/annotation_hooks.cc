// The annotation API of include/memframe/annotate.h: defined here, strong,
// so a game's weak references find them when the agent is loaded.
#include "capture/allocator_table.h"
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

// Declared whether or not recording has started: the writer sends every
// declaration when it connects, so one made in a static constructor is kept.
MEMFRAME_EXPORT unsigned memframe_allocator_declare(const char* name, int kind, const void* base,
                                                    unsigned long capacity) {
  // The generated AllocatorKind_IsValid lives in the .pb.cc the agent does not
  // link. A heap (ALLOCATOR_HEAP) is the agent's to declare: its blocks are
  // told by their EventBatch.heap, which a game's custom blocks never have.
  if (kind < 0 || kind > memframe::wire::ALLOCATOR_RING) kind = memframe::wire::ALLOCATOR_OTHER;
  return DeclareAllocator(name, static_cast<uint32_t>(kind), reinterpret_cast<uint64_t>(base), capacity);
}

MEMFRAME_EXPORT void memframe_allocator_release(unsigned allocator, const void* mark) {
  if (allocator == 0 || allocator >= AllocatorEnd()) return;
  RecursionGuard guard;
  if (!guard.acquired() || !ShouldRecord()) return;
  RecordAllocatorRelease(guard, allocator, mark);
}
