// The Linux side of buffer/page_allocator.h: raw mmap system calls (never
// the agent's own mmap hook), madvise for huge pages and prefaulting.
#pragma once

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace memframe::agent {

// Reserves `bytes` of zeroed, lazily committed memory; null on failure.
inline void* MapPages(size_t bytes) {
  long p = syscall(SYS_mmap, nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p < 0 && p > -4096 ? nullptr : reinterpret_cast<void*>(p);
}

inline void UnmapPages(void* p, size_t bytes) {
  if (p) syscall(SYS_munmap, p, bytes);
}

// Like MapPages, for a table probed at random: 2 MiB aligned and, where the
// kernel allows (transparent huge pages not "never"), backed by huge pages.
// 16 MiB of 4 KiB pages is 4096 TLB entries, more than a core has: nearly
// every probe of a new stack missed the TLB (a page walk, two-dimensional
// in a VM) and the load of the slot was most of InternStack's time on a
// game's first frames. With huge pages it is 8 entries.
inline void* MapHugePages(size_t bytes) {
  constexpr size_t kHuge = 2u << 20;
  bytes = (bytes + kHuge - 1) & ~(kHuge - 1);
  char* p = static_cast<char*>(MapPages(bytes + kHuge));
  if (!p) return nullptr;
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~uintptr_t{kHuge - 1});
  if (aligned > p) UnmapPages(p, static_cast<size_t>(aligned - p));
  size_t tail = static_cast<size_t>(p + bytes + kHuge - (aligned + bytes));
  if (tail) UnmapPages(aligned + bytes, tail);
#ifdef MADV_HUGEPAGE
  madvise(aligned, bytes, MADV_HUGEPAGE);  // a hint: refused, it stays 4 KiB pages
#endif
  return aligned;
}

// Commits [p, p + bytes) now, writable, leaving its contents as they are;
// safe while other threads use the memory. A table hashed at random commits
// a fresh page on nearly every new entry, and each costs the thread that
// touches it two faults (read, then copy of the zero page with a TLB
// shootdown): on a game thread, mid-frame. The writer thread does this for
// the agent's tables instead, a chunk at a time.
inline void PrefaultPages(void* p, size_t bytes) {
  if (!p || bytes == 0) return;
#ifdef MADV_POPULATE_WRITE
  if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  // Kernels before 5.14: an atomic write of nothing per page does the same.
  for (size_t offset = 0; offset < bytes; offset += 4096)
    __atomic_fetch_or(reinterpret_cast<unsigned long*>(static_cast<char*>(p) + offset), 0ul, __ATOMIC_RELAXED);
}

// Gives back the pages in [p, p + bytes) (page-aligned): their contents
// are lost and they read as zero, resident again only when touched. For a
// buffer whose high part only a rare burst fills.
inline void DiscardPages(void* p, size_t bytes) {
  if (p && bytes) madvise(p, bytes, MADV_DONTNEED);
}

}  // namespace memframe::agent
