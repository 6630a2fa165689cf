#include "capture/recorder.h"

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/event.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "memframe/format.h"
#include "memframe.pb.h"

namespace memframe::agent {

__thread bool t_inside_memframe __attribute__((tls_model("initial-exec"))) = false;
std::atomic<bool> g_recording{false};

namespace {
// Written once per frame, read by every hook: no contention in practice.
std::atomic<uint32_t> g_frame{0};
int g_stack_depth = 32;
bool g_stacks = true;
__thread uint32_t t_present_depth __attribute__((tls_model("initial-exec"))) = 0;

uint32_t StackId() {
  if (!g_stacks) return 0;
  uint64_t frames[kMaxStackDepth];
  int depth = CaptureStack(frames, g_stack_depth);
  return depth > 0 ? InternStack(frames, depth) : 0;
}

uint32_t ClampDuration(uint64_t d) { return d > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(d); }
}  // namespace

void ConfigureCapture(int stack_depth, bool stacks) {
  if (stack_depth < 1) stack_depth = 1;
  if (stack_depth > kMaxStackDepth) stack_depth = kMaxStackDepth;
  g_stack_depth = stack_depth;
  g_stacks = stacks;
}

uint32_t CurrentFrame() { return g_frame.load(std::memory_order_relaxed); }

void RecordAlloc(const RecursionGuard&, const void* address, size_t size, uint32_t packed_kind, uint64_t ticks,
                 uint64_t duration) {
  Event e;
  e.ticks = ticks;
  e.address = reinterpret_cast<uint64_t>(address);
  e.size = size;
  e.stack_id = StackId();
  e.frame = CurrentFrame();
  e.duration = ClampDuration(duration);
  e.kind = packed_kind;
  PushEvent(e);
}

void RecordFree(const RecursionGuard&, const void* address, size_t size, uint32_t packed_kind, uint64_t ticks,
                uint64_t duration) {
  Event e;
  e.ticks = ticks;
  e.address = reinterpret_cast<uint64_t>(address);
  e.size = size;
  e.stack_id = 0;
  e.frame = CurrentFrame();
  e.duration = ClampDuration(duration);
  e.kind = packed_kind;
  PushEvent(e);
}

void EnterPresent() { ++t_present_depth; }

void LeavePresent(uint32_t entry_point_marker) {
  if (t_present_depth == 0 || --t_present_depth != 0) return;
  uint32_t ended = g_frame.fetch_add(1, std::memory_order_relaxed);
  if (!Recording()) return;
  RecursionGuard guard;
  if (!guard.acquired()) return;
  Event e;
  e.ticks = Ticks();
  e.address = entry_point_marker;
  e.size = ended;
  e.stack_id = 0;
  e.frame = ended;
  e.duration = 0;
  e.kind = wire::PackKind(wire::EVENT_FRAME_END, 0, 0);
  PushEvent(e);
}

}  // namespace memframe::agent
