// The C allocation functions. Each one resolves the real function on first
// use (serving dlsym's own allocations from the bootstrap pool meanwhile) and
// reports to the recorder through TrackedAlloc / TrackedFree.
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

#include <cstring>

#include "hooks/bootstrap_pool.h"
#include "hooks/tracked_call.h"
#include "memframe/format.h"
#include "memframe.pb.h"

using namespace memframe::agent;

namespace {

// True when this call must be served by the bootstrap pool: the real
// functions are being looked up on this very thread.
bool NeedBootstrap() {
  if (__builtin_expect(RealFunctionsResolved(), 1)) return false;
  if (ResolvingRealFunctions()) return true;
  ResolveRealFunctions();
  return false;
}

bool MultiplyOverflows(size_t a, size_t b, size_t* out) { return __builtin_mul_overflow(a, b, out); }

// realloc of a bootstrap block: move it to the real heap.
void* MoveOutOfBootstrap(void* old, size_t size) {
  void* fresh = malloc(size);
  if (fresh) {
    size_t old_size = BootstrapBlockSize(old);
    memcpy(fresh, old, old_size < size ? old_size : size);
  }
  return fresh;
}

}  // namespace

MEMFRAME_EXPORT void* malloc(size_t size) noexcept {
  if (NeedBootstrap()) return BootstrapAlloc(size);
  return TrackedAlloc(size, kMallocKind, [&] { return g_real.malloc(size); });
}

MEMFRAME_EXPORT void* calloc(size_t count, size_t size) noexcept {
  size_t total;
  if (MultiplyOverflows(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  if (NeedBootstrap()) return BootstrapAlloc(total);
  return TrackedAlloc(total, kCallocKind, [&] { return g_real.calloc(count, size); });
}

MEMFRAME_EXPORT void free(void* block) noexcept {
  if (!block || IsBootstrapBlock(block)) return;
  EnsureRealFunctions();
  TrackedFree(block, 0, kFreeKind, [&] { g_real.free(block); });
}

MEMFRAME_EXPORT void* realloc(void* old, size_t size) noexcept {
  if (NeedBootstrap()) {
    void* fresh = BootstrapAlloc(size);
    if (fresh && old) memcpy(fresh, old, BootstrapBlockSize(old) < size ? BootstrapBlockSize(old) : size);
    return fresh;
  }
  if (IsBootstrapBlock(old)) return MoveOutOfBootstrap(old, size);
  return TrackedRealloc(old, size, [&] { return g_real.realloc(old, size); });
}

MEMFRAME_EXPORT void* reallocarray(void* old, size_t count, size_t size) noexcept {
  size_t total;
  if (MultiplyOverflows(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(old, total);
}

MEMFRAME_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  EnsureRealFunctions();
  if (!g_real.posix_memalign) return ENOMEM;
  int result = 0;
  TrackedAlloc(size, kMallocKind, [&]() -> void* {
    result = g_real.posix_memalign(out, alignment, size);
    return result == 0 ? *out : nullptr;
  });
  return result;
}

MEMFRAME_EXPORT void* aligned_alloc(size_t alignment, size_t size) noexcept {
  EnsureRealFunctions();
  if (!g_real.aligned_alloc) return nullptr;
  return TrackedAlloc(size, kMallocKind, [&] { return g_real.aligned_alloc(alignment, size); });
}

MEMFRAME_EXPORT void* memalign(size_t alignment, size_t size) noexcept {
  if (NeedBootstrap()) return BootstrapAlloc(size, alignment);
  if (!g_real.memalign) return nullptr;
  return TrackedAlloc(size, kMallocKind, [&] { return g_real.memalign(alignment, size); });
}

MEMFRAME_EXPORT void* valloc(size_t size) noexcept {
  EnsureRealFunctions();
  if (!g_real.valloc) return nullptr;
  return TrackedAlloc(size, kMallocKind, [&] { return g_real.valloc(size); });
}

MEMFRAME_EXPORT void* pvalloc(size_t size) noexcept {
  EnsureRealFunctions();
  if (!g_real.pvalloc) return nullptr;
  return TrackedAlloc(size, kMallocKind, [&] { return g_real.pvalloc(size); });
}
