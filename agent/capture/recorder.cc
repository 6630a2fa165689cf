#include "capture/recorder.h"

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/event.h"
#include "capture/marker_table.h"
#include "hooks/present_hooks.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "memframe/format.h"
#include "memframe.pb.h"

namespace memframe::agent {

__thread ThreadState t_thread_state __attribute__((tls_model("initial-exec"))) = ThreadState::kOutside;
__thread OuterNew t_outer_new __attribute__((tls_model("initial-exec")));
std::atomic<uint64_t> g_unrecorded_in_signal_handlers{0};
std::atomic<bool> g_recording{false};

namespace {
uint32_t ClampDuration(uint64_t d) { return d > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(d); }

// The one place an event is pushed. Callers read the clock, capture the stack
// and read the frame counter first, in that order: a stack's unwinding must
// not count in the event's time, and the frame is the one the event
// happened in.
void Push(uint64_t ticks, uint32_t packed_kind, uint64_t frame, uint64_t address, uint64_t size, uint32_t stack_id,
          uint64_t duration) {
  PushEvent(ticks, address, size, stack_id, ClampDuration(duration), frame, packed_kind);
}

constexpr uint32_t kFrameEnd = wire::PackKind(wire::EVENT_FRAME_END, 0, 0);

// Written once per frame, read by every hook: no contention in practice.
// 64-bit: never wraps (events keep its low 56 bits, event.h).
std::atomic<uint64_t> g_frame{0};
int g_stack_depth = 32;
bool g_stacks = true;
bool g_free_stacks = false;  // off by default: a free's stack doubles the unwinding cost
__thread uint32_t t_present_depth __attribute__((tls_model("initial-exec"))) = 0;

// Who ends frames: nobody yet (time slices), presents, or the game's marks.
enum FrameSource : uint32_t { kNoSourceYet = 0, kPresents = 1, kAnnotations = 2 };
std::atomic<uint32_t> g_frame_source{kNoSourceYet};
// MEMFRAME_FRAME_SOURCE: one entry point ends frames (0 = any outermost
// present), or only time slices do.
uint32_t g_forced_marker = 0;
bool g_slices_only = false;
// Time slices recorded in this stream (each FRAME_END of a slice carries its number).
uint64_t g_time_slices = 0;

// Advances the frame counter and records FRAME_END on the calling thread.
void EndFrame(uint32_t marker) {
  uint64_t ended = g_frame.fetch_add(1, std::memory_order_relaxed);
  if (!Recording()) return;
  // The writer thread (time slices) is already inside memframe; a present
  // hook is not. Either way, nothing below is the game's allocation.
  RecursionGuard guard;
  Push(OrderedTicks(), kFrameEnd, ended, marker, ended, 0, 0);
}

uint32_t StackId(const void* hook_frame = nullptr) {
  if (!g_stacks) return 0;
  if (ThreadBuffer* buffer = CurrentThreadBuffer())
    return CaptureStackId(buffer->stack_memo, buffer->recent_stacks, g_stack_depth, hook_frame);
  uint64_t frames[kMaxStackDepth];
  int depth = CaptureStack(frames, g_stack_depth, hook_frame);
  return depth > 0 ? InternStack(frames, depth) : 0;
}
}  // namespace

void ConfigureCapture(int stack_depth, bool stacks, bool free_stacks) {
  g_free_stacks = free_stacks;
  if (stack_depth < 1) stack_depth = 1;
  if (stack_depth > kMaxStackDepth) stack_depth = kMaxStackDepth;
  g_stack_depth = stack_depth;
  g_stacks = stacks;
}

uint64_t CurrentFrame() { return g_frame.load(std::memory_order_relaxed); }

void SetFrameCounterForTesting(uint64_t frame) { g_frame.store(frame, std::memory_order_relaxed); }

void ForgetRecorderCountsAfterFork() {
  g_unrecorded_in_signal_handlers.store(0, std::memory_order_relaxed);
  g_time_slices = 0;
}

void RecordAlloc(const RecursionGuard&, const void* address, size_t size, uint32_t packed_kind, uint64_t ticks,
                 uint64_t duration, const void* hook_frame, uint32_t heap) {
  const uint32_t stack = StackId(hook_frame);
  if (__builtin_expect(heap != 0, 0)) {
    PushHeapEvent(ticks, reinterpret_cast<uint64_t>(address), size, stack, ClampDuration(duration), CurrentFrame(),
                  packed_kind, heap);
    return;
  }
  Push(ticks, packed_kind, CurrentFrame(), reinterpret_cast<uint64_t>(address), size, stack, duration);
}

void RecordFree(const RecursionGuard&, const void* address, size_t size, uint32_t packed_kind, uint64_t ticks,
                uint64_t duration, const void* hook_frame) {
  const uint32_t stack = g_free_stacks ? StackId(hook_frame) : 0;
  Push(ticks, packed_kind, CurrentFrame(), reinterpret_cast<uint64_t>(address), size, stack, duration);
}

uint32_t CaptureEventStack(const RecursionGuard&, const void* hook_frame) { return StackId(hook_frame); }

void EnterPresent() { ++t_present_depth; }

void ConfigureFrameSource(uint32_t forced_marker, bool slices_only) {
  g_forced_marker = forced_marker;
  g_slices_only = slices_only;
}

void LeavePresent(uint32_t entry_point_marker) {
  if (t_present_depth == 0) return;
  --t_present_depth;
  if (g_slices_only) return;
  if (g_forced_marker) {
    // A chosen entry point ends a frame at every call, nested or not.
    if (entry_point_marker == g_forced_marker) {
      g_frame_source.store(kPresents, std::memory_order_relaxed);
      EndFrame(entry_point_marker);
    }
    return;
  }
  if (t_present_depth != 0) return;
  uint32_t source = g_frame_source.load(std::memory_order_relaxed);
  if (source == kAnnotations) return;
  if (source == kNoSourceYet) g_frame_source.store(kPresents, std::memory_order_relaxed);
  EndFrame(entry_point_marker);
}

void AnnotatedFrameMark() {
  g_frame_source.store(kAnnotations, std::memory_order_relaxed);
  EndFrame(kMarkerAnnotation);
}

void TimeSliceFrame() {
  // Slices do not advance the frame counter: frames stay exactly the
  // game's presents. A reader uses slices only when a capture has no
  // present at all (FORMAT.md).
  bool presents_seen = g_frame_source.load(std::memory_order_relaxed) != kNoSourceYet;
  if ((presents_seen && !g_slices_only) || !Recording()) return;
  RecursionGuard guard;
  const uint64_t ticks = OrderedTicks();
  Push(ticks, kFrameEnd, CurrentFrame(), kMarkerTimeSlice, g_time_slices++, 0, 0);
}

namespace {
// An event of the calling thread that marks a moment (no block of its own).
void RecordPoint(uint32_t kind, uint64_t address, uint64_t size) {
  const uint64_t ticks = OrderedTicks();
  const uint32_t stack = StackId();
  Push(ticks, wire::PackKind(kind, 0, 0), CurrentFrame(), address, size, stack, 0);
}
}  // namespace

void RecordMarker(const RecursionGuard&, const char* name) {
  uint32_t id = InternMarker(name);
  if (id) RecordPoint(wire::EVENT_MARKER, 0, id);
}

void RecordAllocatorRelease(const RecursionGuard&, uint32_t allocator, const void* mark) {
  RecordPoint(wire::EVENT_ALLOCATOR_RELEASE, reinterpret_cast<uint64_t>(mark), allocator);
}

}  // namespace memframe::agent
