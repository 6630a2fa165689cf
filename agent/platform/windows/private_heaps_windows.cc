#include "platform/windows/private_heaps_windows.h"

#include <atomic>

#include "buffer/thread_buffer.h"
#include "capture/allocator_table.h"
#include "capture/recorder.h"
#include "hooks/tracked_call.h"
#include "memframe.pb.h"

namespace memframe::agent {

namespace {

// Handle -> allocator id, open addressing, lock-free: a HeapAlloc hook
// looks its heap up without a lock, and HeapCreate and HeapDestroy of
// several threads at once each claim or free a slot with one CAS. Twice the
// allocator table's 256 entries, so a probe stays short.
constexpr uint32_t kSlots = 1024;
constexpr uintptr_t kEmpty = 0;
constexpr uintptr_t kGone = 1;  // a destroyed heap's slot: probes go past it, a new heap may take it

struct Slot {
  std::atomic<uintptr_t> heap{kEmpty};
  std::atomic<uint32_t> id{0};
};
Slot g_slots[kSlots];

uint32_t Home(uintptr_t heap) {
  // Heaps start on 64 KiB boundaries: the bits above those spread them.
  return static_cast<uint32_t>(((heap >> 16) * 0x9E3779B97F4A7C15ull) >> 54) & (kSlots - 1);
}

// The slot holding `heap`, or null.
Slot* Find(uintptr_t heap) {
  for (uint32_t i = 0, at = Home(heap); i < kSlots; ++i, at = (at + 1) & (kSlots - 1)) {
    const uintptr_t h = g_slots[at].heap.load(std::memory_order_acquire);
    if (h == heap) return &g_slots[at];
    if (h == kEmpty) return nullptr;
  }
  return nullptr;
}

void Remember(uintptr_t heap, uint32_t id) {
  for (uint32_t i = 0, at = Home(heap); i < kSlots; ++i, at = (at + 1) & (kSlots - 1)) {
    uintptr_t h = g_slots[at].heap.load(std::memory_order_relaxed);
    if (h != kEmpty && h != kGone) continue;
    // The id first: a reader that finds the handle finds its id (the heap's
    // creator has not returned yet, so no block of it is being recorded).
    if (g_slots[at].heap.compare_exchange_strong(h, heap, std::memory_order_acq_rel)) {
      g_slots[at].id.store(id, std::memory_order_release);
      return;
    }
  }
}

// "heap 0x<handle>", without the C runtime (a hook allocates nothing).
void HeapName(uintptr_t heap, char (&name)[32]) {
  const char prefix[] = "heap 0x";
  int n = 0;
  for (const char* p = prefix; *p; ++p) name[n++] = *p;
  int digits = 1;
  while (digits < 16 && (heap >> (4 * digits)) != 0) ++digits;
  for (int d = digits - 1; d >= 0; --d) name[n++] = "0123456789abcdef"[(heap >> (4 * d)) & 0xf];
  name[n] = 0;
}

}  // namespace

void NamePrivateHeap(HANDLE heap, const void* hook_frame) {
  if (!heap || heap == GetProcessHeap()) return;
  RecursionGuard guard(HookKind::kRegion);
  if (!guard.acquired() || !ShouldRecord()) return;
  const uintptr_t handle = reinterpret_cast<uintptr_t>(heap);
  AllocatorOrigin origin;
  origin.stack_id = CaptureEventStack(guard, hook_frame);
  origin.ticks = OrderedTicks();
  origin.thread_id = CurrentThreadId();
  char name[32];
  HeapName(handle, name);
  const uint32_t id = DeclareAllocator(name, wire::ALLOCATOR_HEAP, handle, 0, origin);
  if (id) Remember(handle, id);
}

uint32_t PrivateHeapId(HANDLE heap) {
  const Slot* slot = Find(reinterpret_cast<uintptr_t>(heap));
  return slot ? slot->id.load(std::memory_order_acquire) : 0;
}

void PrivateHeapDestroyed(HANDLE heap) {
  Slot* slot = Find(reinterpret_cast<uintptr_t>(heap));
  if (!slot) return;
  const uint32_t id = slot->id.load(std::memory_order_acquire);
  slot->id.store(0, std::memory_order_relaxed);
  slot->heap.store(kGone, std::memory_order_release);
  RecursionGuard guard(HookKind::kRegion);
  if (id && guard.acquired() && ShouldRecord()) RecordAllocatorRelease(guard, id, nullptr);
}

}  // namespace memframe::agent
