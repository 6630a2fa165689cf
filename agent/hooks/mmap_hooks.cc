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

// The real functions once the agent resolved them (real_functions.cc);
// before that (the loader and dlsym map memory themselves) and where libc
// has none, the raw system calls stand in. Never a lookup here: this hook
// runs inside other allocators' locks.
void* CallMmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (RealFunctionsResolved() && g_real.mmap) return g_real.mmap(addr, length, prot, flags, fd, offset);
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, length, prot, flags, fd, offset));
}

int CallMunmap(void* addr, size_t length) {
  if (RealFunctionsResolved() && g_real.munmap) return g_real.munmap(addr, length);
  return static_cast<int>(syscall(SYS_munmap, addr, length));
}

void* CallMremap(void* old_address, size_t old_size, size_t new_size, int flags, void* new_address) {
  if (RealFunctionsResolved() && g_real.mremap) return g_real.mremap(old_address, old_size, new_size, flags, new_address);
  return reinterpret_cast<void*>(syscall(SYS_mremap, old_address, old_size, new_size, flags, new_address));
}

void* TrackedMmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  if (!(flags & MAP_ANONYMOUS)) return CallMmap(addr, length, prot, flags, fd, offset);
  void* region = TrackedAlloc<true, HookKind::kRegion>(length, kMap, [&]() -> void* {
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
  TrackedFree<true, HookKind::kRegion>(addr, length, kUnmap, [&] { result = CallMunmap(addr, length); });
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
  auto call = [&] { return CallMremap(old_address, old_size, new_size, flags, new_address); };
  RecursionGuard guard(HookKind::kRegion);
  if (!guard.acquired() || !ShouldRecord()) return guard.CallReal(ThreadState::kInRealFree, call);
  uint64_t before = OrderedTicks();
  void* result = guard.CallReal(ThreadState::kInRealFree, call);
  uint64_t after = OrderedTicks();
  if (result != MAP_FAILED) {
    RecordFree(guard, old_address, old_size, kRemapUnmap, before, 0);
    RecordAlloc(guard, result, new_size, kRemapMap, after, after - before);
  }
  return result;
}
