// The shape every allocation hook shares: take the recursion guard, call the
// real function between two clock reads, record the result. Kept inline so
// each hook compiles to one short function.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "capture/clock.h"
#include "capture/recorder.h"
#include "capture/recursion_guard.h"
#include "memframe.pb.h"
#include "memframe/format.h"
#include "os_hook_runtime.h"  // agent/platform/<os>/: how hooks reach the real functions

#define MEMFRAME_EXPORT_CXX __attribute__((visibility("default")))

namespace memframe::agent {

// The kinds the heap hooks record (the family tells a mismatched delete).
constexpr uint32_t kMallocKind = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kCallocKind = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, wire::kFlagCalloc);
constexpr uint32_t kFreeKind = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kNewKind = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_NEW, 0);
constexpr uint32_t kNewArrayKind = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_NEW_ARRAY, 0);
constexpr uint32_t kDeleteKind = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_NEW, 0);
constexpr uint32_t kDeleteArrayKind = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_NEW_ARRAY, 0);

// The next definition of `name` after the agent, remembered once found. The
// agent's start fills these caches (ResolveProcessFunctions,
// ResolveInterceptedFunctions), so a hook normally only reads one. The
// lookup here is the last resort, for a present whose library was opened
// RTLD_GLOBAL after the start and is then called by name (present_hooks.h):
// it takes the loader's lock and resets the thread's dlerror state, which
// is why it is not the normal path. A miss is not remembered, since the
// library may still be dlopen'ed. No recursion guard: what dlsym allocates
// and frees is the thread's dlerror state, shared with the game's own dl*
// calls; hidden, those frees would be lost.
template <typename Fn>
inline Fn CachedNextSymbol(std::atomic<Fn>& cache, const char* name) {
  Fn fn = cache.load(std::memory_order_acquire);
  if (!fn) {
    fn = reinterpret_cast<Fn>(NextSymbol(name));
    if (fn) cache.store(fn, std::memory_order_release);
  }
  return fn;
}

inline void EnsureRealFunctions() {
  if (__builtin_expect(!RealFunctionsResolved(), 0)) ResolveRealFunctions();
}

// Whether to record this call: recording, or not yet set up at all (a
// library constructor allocating before the agent's constructor ran, which
// is the agent's own if the library is there for the agent alone: an
// allocation passes `caller`, its return address, to tell).
inline bool ShouldRecord(const void* caller = nullptr) {
  if (__builtin_expect(Recording() && g_agent_constructed.load(std::memory_order_relaxed), 1)) return true;
  return ShouldRecordEarly(caller);
}

// The clock read that orders an event: unfenced for the heap hooks (the
// merge undoes the rare cross-thread race that allows, handoff_repair.h,
// which is cheaper than fencing every event), fenced for mmap / munmap
// (system calls: the fence is nothing next to them, and the merge does not
// reorder regions).
template <bool kFenced>
inline uint64_t OrderTicks() { return kFenced ? OrderedTicks() : Ticks(); }

// `call` performs the real allocation and returns the block (or null).
// Always inlined: __builtin_frame_address(0) is then the hook's own frame,
// where the stack's unwind starts (stack_capture.h). `kOuter`: the real
// function allocates through the hooks itself (operator new); `outer` says
// which of its inner calls are the game's (none by default). `heap`: the
// private heap the block comes from (RecordAlloc), 0 for none.
template <bool kFenced = false, HookKind kKind = HookKind::kHeapAlloc, bool kOuter = false, typename Call>
__attribute__((always_inline)) inline void* TrackedAlloc(size_t size, uint32_t packed_kind, Call call,
                                                         OuterNew outer = {}, uint32_t heap = 0) {
  constexpr ThreadState kWindow = kOuter ? ThreadState::kInRealOuter : ThreadState::kInRealAlloc;
  RecursionGuard guard(kKind, size);
  if (!guard.acquired() || !ShouldRecord(__builtin_return_address(0))) return guard.CallReal(kWindow, call);
  uint64_t before = Ticks();
  void* block;
  if constexpr (kOuter) {
    OuterNewScope scope(outer);
    block = guard.CallReal(kWindow, call);
  } else {
    block = guard.CallReal(kWindow, call);
  }
  // Stamped after the real call, so that a block is not seen before it
  // exists (less a few hundred cycles when unfenced).
  uint64_t after = OrderTicks<kFenced>();
  if (block) RecordAlloc(guard, block, size, packed_kind, after, after - before, __builtin_frame_address(0), heap);
  return block;
}

// `call` performs the real free.
template <bool kFenced = false, HookKind kKind = HookKind::kHeapFree, bool kOuter = false, typename Call>
__attribute__((always_inline)) inline void TrackedFree(const void* block, size_t size, uint32_t packed_kind,
                                                       Call call) {
  constexpr ThreadState kWindow = kOuter ? ThreadState::kInRealOuter : ThreadState::kInRealFree;
  RecursionGuard guard(kKind);
  if (!guard.acquired() || !ShouldRecord()) return guard.CallReal(kWindow, call);
  uint64_t before = OrderTicks<kFenced>();  // before the real call: the address may be reused at once
  if constexpr (kOuter) {
    OuterNewScope scope({});
    guard.CallReal(kWindow, call);
  } else {
    guard.CallReal(kWindow, call);
  }
  uint64_t after = Ticks();
  RecordFree(guard, block, size, packed_kind, before, after - before, __builtin_frame_address(0));
}

// realloc as the recorder sees it: the old block goes, the new one comes,
// both tagged so the analysis can tell a move from a malloc/free pair.
// `call` performs the real realloc. kRegion for the Win32 heap's HeapReAlloc
// (platform/windows/windows_hooks.cc). `kOuter` as for TrackedAlloc, and
// always inlined for the same reason. `heap` as for TrackedAlloc.
template <HookKind kKind = HookKind::kHeapAlloc, bool kOuter = false, typename Call>
__attribute__((always_inline)) inline void* TrackedRealloc(void* old, size_t size, Call call, uint32_t heap = 0) {
  constexpr ThreadState kWindow = kOuter ? ThreadState::kInRealOuter : ThreadState::kInRealFree;
  constexpr uint32_t kReallocAlloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, wire::kFlagRealloc);
  constexpr uint32_t kReallocFree = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, wire::kFlagRealloc);
  RecursionGuard guard(kKind, size);
  if (!guard.acquired() || !ShouldRecord()) return guard.CallReal(kWindow, call);
  uint64_t before = OrderedTicks();
  void* fresh = guard.CallReal(kWindow, call);
  uint64_t after = OrderedTicks();
  if (old && (fresh || size == 0)) RecordFree(guard, old, 0, kReallocFree, before, 0, __builtin_frame_address(0));
  if (fresh)
    RecordAlloc(guard, fresh, size, kReallocAlloc, after, after - before, __builtin_frame_address(0), heap);
  return fresh;
}

}  // namespace memframe::agent
