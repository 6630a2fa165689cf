// Hooks for the allocator the executable defines itself (own_allocator_patch.h):
// the same recording as malloc_hooks.cc and new_delete_hooks.cc, but each
// one's real function is the moved original of the executable's entry, not
// the next definition after the agent (which would be glibc's, another heap).
// Reached only through a patched entry. Not hooked: malloc_usable_size and
// the like (they neither allocate nor free) and the aligned operator new and
// delete. An allocator's own API (mallocx, mi_malloc, ...) has its hooks in
// allocator_api_hooks.cc, patched here with these.
#include <errno.h>

#include <new>

#include "attach/own_allocator_patch.h"
#include "hooks/allocator_api_hooks.h"
#include "hooks/own_allocator_hooks.h"
#include "hooks/tracked_call.h"

namespace memframe::agent {

namespace {

enum Own {
  kOwnMalloc, kOwnCalloc, kOwnRealloc, kOwnFree, kOwnPosixMemalign, kOwnAlignedAlloc, kOwnMemalign, kOwnValloc,
  kOwnPvalloc, kOwnNew, kOwnNewArray, kOwnNewNothrow, kOwnNewArrayNothrow, kOwnDelete, kOwnDeleteArray,
  kOwnDeleteSized, kOwnDeleteArraySized, kOwnCount
};
std::atomic<void*> g_own_real[kOwnCount];

template <typename Fn>
Fn Real(Own which) {
  return reinterpret_cast<Fn>(g_own_real[which].load(std::memory_order_acquire));
}

using Nothrow = const std::nothrow_t&;

void* OwnMalloc(size_t size) {
  return TrackedAlloc(size, kMallocKind, [&] { return Real<void* (*)(size_t)>(kOwnMalloc)(size); });
}
void* OwnCalloc(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) total = SIZE_MAX;  // the real calloc fails it
  return TrackedAlloc(total, kCallocKind,
                      [&] { return Real<void* (*)(size_t, size_t)>(kOwnCalloc)(count, size); });
}
void* OwnRealloc(void* old, size_t size) {
  return TrackedRealloc(old, size, [&] { return Real<void* (*)(void*, size_t)>(kOwnRealloc)(old, size); });
}
void OwnFree(void* block) {
  if (!block) return Real<void (*)(void*)>(kOwnFree)(block);
  TrackedFree(block, 0, kFreeKind, [&] { Real<void (*)(void*)>(kOwnFree)(block); });
}
int OwnPosixMemalign(void** out, size_t alignment, size_t size) {
  int result = 0;
  TrackedAlloc(size, kMallocKind, [&]() -> void* {
    result = Real<int (*)(void**, size_t, size_t)>(kOwnPosixMemalign)(out, alignment, size);
    return result == 0 ? *out : nullptr;
  });
  return result;
}
void* OwnAlignedAlloc(size_t alignment, size_t size) {
  return TrackedAlloc(size, kMallocKind,
                      [&] { return Real<void* (*)(size_t, size_t)>(kOwnAlignedAlloc)(alignment, size); });
}
void* OwnMemalign(size_t alignment, size_t size) {
  return TrackedAlloc(size, kMallocKind,
                      [&] { return Real<void* (*)(size_t, size_t)>(kOwnMemalign)(alignment, size); });
}
void* OwnValloc(size_t size) {
  return TrackedAlloc(size, kMallocKind, [&] { return Real<void* (*)(size_t)>(kOwnValloc)(size); });
}
void* OwnPvalloc(size_t size) {
  return TrackedAlloc(size, kMallocKind, [&] { return Real<void* (*)(size_t)>(kOwnPvalloc)(size); });
}

// operator new may call the executable's malloc (hooked too): kOuter keeps
// that inner call from being recorded a second time.
template <Own kWhich, uint32_t kKind>
void* OwnNew(size_t size) {
  return TrackedAlloc<false, HookKind::kHeapAlloc, true>(size, kKind,
                                                         [&] { return Real<void* (*)(size_t)>(kWhich)(size); });
}
template <Own kWhich, uint32_t kKind>
void* OwnNewNothrow(size_t size, Nothrow tag) noexcept {
  return TrackedAlloc<false, HookKind::kHeapAlloc, true>(
      size, kKind, [&] { return Real<void* (*)(size_t, Nothrow)>(kWhich)(size, tag); });
}
template <Own kWhich, uint32_t kKind>
void OwnDelete(void* block) noexcept {
  if (!block) return Real<void (*)(void*)>(kWhich)(block);
  TrackedFree<false, HookKind::kHeapFree, true>(block, 0, kKind, [&] { Real<void (*)(void*)>(kWhich)(block); });
}
template <Own kWhich, uint32_t kKind>
void OwnDeleteSized(void* block, size_t size) noexcept {
  if (!block) return Real<void (*)(void*, size_t)>(kWhich)(block, size);
  TrackedFree<false, HookKind::kHeapFree, true>(block, size, kKind,
                                                [&] { Real<void (*)(void*, size_t)>(kWhich)(block, size); });
}

void* Hook(auto* fn) { return reinterpret_cast<void*>(fn); }

}  // namespace

void HookExecutableAllocator(OwnAllocatorPatching when) {
  OwnAllocatorHook hooks[kMaxOwnAllocatorHooks] = {
      {"malloc", Hook(OwnMalloc), &g_own_real[kOwnMalloc]},
      {"calloc", Hook(OwnCalloc), &g_own_real[kOwnCalloc]},
      {"realloc", Hook(OwnRealloc), &g_own_real[kOwnRealloc]},
      {"free", Hook(OwnFree), &g_own_real[kOwnFree]},
      {"posix_memalign", Hook(OwnPosixMemalign), &g_own_real[kOwnPosixMemalign]},
      {"aligned_alloc", Hook(OwnAlignedAlloc), &g_own_real[kOwnAlignedAlloc]},
      {"memalign", Hook(OwnMemalign), &g_own_real[kOwnMemalign]},
      {"valloc", Hook(OwnValloc), &g_own_real[kOwnValloc]},
      {"pvalloc", Hook(OwnPvalloc), &g_own_real[kOwnPvalloc]},
      {"_Znwm", Hook(OwnNew<kOwnNew, kNewKind>), &g_own_real[kOwnNew]},
      {"_Znam", Hook(OwnNew<kOwnNewArray, kNewArrayKind>), &g_own_real[kOwnNewArray]},
      {"_ZnwmRKSt9nothrow_t", Hook(OwnNewNothrow<kOwnNewNothrow, kNewKind>), &g_own_real[kOwnNewNothrow]},
      {"_ZnamRKSt9nothrow_t", Hook(OwnNewNothrow<kOwnNewArrayNothrow, kNewArrayKind>),
       &g_own_real[kOwnNewArrayNothrow]},
      {"_ZdlPv", Hook(OwnDelete<kOwnDelete, kDeleteKind>), &g_own_real[kOwnDelete]},
      {"_ZdaPv", Hook(OwnDelete<kOwnDeleteArray, kDeleteArrayKind>), &g_own_real[kOwnDeleteArray]},
      {"_ZdlPvm", Hook(OwnDeleteSized<kOwnDeleteSized, kDeleteKind>), &g_own_real[kOwnDeleteSized]},
      {"_ZdaPvm", Hook(OwnDeleteSized<kOwnDeleteArraySized, kDeleteArrayKind>), &g_own_real[kOwnDeleteArraySized]},
  };
  // Then the allocator's own API (mi_malloc, mallocx, ...), if it is there.
  const size_t count = kOwnCount + AllocatorApiEntryHooks(hooks + kOwnCount, kMaxOwnAllocatorHooks - kOwnCount);
  HookOwnAllocator(hooks, count, when);
}

}  // namespace memframe::agent
