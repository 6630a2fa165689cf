// Anonymous memory mappings: games keep their own arenas and pools there, so
// they are recorded as regions (EVENT_MAP / EVENT_UNMAP), apart from heap
// blocks. File mappings are not memory the game allocates and are passed
// through unrecorded; munmap is recorded for any range (the analysis
// matches it against the regions it knows). glibc's malloc maps its large
// blocks with an internal call that does not come through here, so no
// block is counted twice.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>

#include "hooks/tracked_call.h"
#include "memframe.pb.h"
#include "memframe/format.h"

using namespace memframe::agent;
using memframe::wire::PackKind;

namespace {
constexpr uint32_t kMap = PackKind(memframe::wire::EVENT_MAP, memframe::wire::FAMILY_MMAP, 0);
constexpr uint32_t kUnmap = PackKind(memframe::wire::EVENT_UNMAP, memframe::wire::FAMILY_MMAP, 0);
constexpr uint32_t kRemapUnmap =
    PackKind(memframe::wire::EVENT_UNMAP, memframe::wire::FAMILY_MMAP, memframe::wire::kFlagRealloc);
constexpr uint32_t kRemapMap =
    PackKind(memframe::wire::EVENT_MAP, memframe::wire::FAMILY_MMAP, memframe::wire::kFlagRealloc);

using MmapFn = void* (*)(void*, size_t, int, int, int, off_t);
using MunmapFn = int (*)(void*, size_t);
using MremapFn = void* (*)(void*, size_t, size_t, int, ...);

std::atomic<MmapFn> g_mmap{nullptr};
std::atomic<MunmapFn> g_munmap{nullptr};
std::atomic<MremapFn> g_mremap{nullptr};

// The real functions; before the real allocator is resolved (the loader and
// dlsym map memory themselves) dlsym is not usable yet and the raw system
// calls stand in.
template <typename Fn>
Fn Real(std::atomic<Fn>& cache, const char* name) {
  return RealFunctionsResolved() ? CachedNextSymbol(cache, name) : cache.load(std::memory_order_acquire);
}

void* CallMmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (MmapFn real = Real(g_mmap, "mmap")) return real(addr, length, prot, flags, fd, offset);
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, length, prot, flags, fd, offset));
}

int CallMunmap(void* addr, size_t length) {
  if (MunmapFn real = Real(g_munmap, "munmap")) return real(addr, length);
  return static_cast<int>(syscall(SYS_munmap, addr, length));
}

void* TrackedMmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (!(flags & MAP_ANONYMOUS)) return CallMmap(addr, length, prot, flags, fd, offset);
  void* region = TrackedAlloc<true>(length, kMap, [&]() -> void* {
    void* p = CallMmap(addr, length, prot, flags, fd, offset);
    return p == MAP_FAILED ? nullptr : p;
  });
  return region ? region : MAP_FAILED;
}
}  // namespace

MEMFRAME_EXPORT void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) noexcept {
  return TrackedMmap(addr, length, prot, flags, fd, offset);
}

MEMFRAME_EXPORT void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off_t offset) noexcept {
  return TrackedMmap(addr, length, prot, flags, fd, offset);
}

MEMFRAME_EXPORT int munmap(void* addr, size_t length) noexcept {
  int result = 0;
  TrackedFree<true>(addr, length, kUnmap, [&] { result = CallMunmap(addr, length); });
  return result;
}

MEMFRAME_EXPORT void* mremap(void* old_address, size_t old_size, size_t new_size, int flags, ...) noexcept {
  void* new_address = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list args;
    va_start(args, flags);
    new_address = va_arg(args, void*);
    va_end(args);
  }
  auto call = [&]() -> void* {
    MremapFn real = Real(g_mremap, "mremap");
    if (real) return real(old_address, old_size, new_size, flags, new_address);
    return reinterpret_cast<void*>(syscall(SYS_mremap, old_address, old_size, new_size, flags, new_address));
  };
  RecursionGuard guard;
  if (!guard.acquired() || !ShouldRecord()) return call();
  uint64_t before = OrderedTicks();
  void* result = call();
  uint64_t after = OrderedTicks();
  if (result != MAP_FAILED) {
    RecordFree(guard, old_address, old_size, kRemapUnmap, before, 0);
    RecordAlloc(guard, result, new_size, kRemapMap, after, after - before);
  }
  return result;
}
