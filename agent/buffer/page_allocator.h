// The agent's own memory comes straight from mmap, never from the hooked
// allocator: it must not show up in the game's profile, and it must work
// while malloc itself is being resolved.
#pragma once

#include <sys/mman.h>

#include <cstddef>

namespace memframe::agent {

// Reserves `bytes` of zeroed, lazily committed memory; null on failure.
inline void* MapPages(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
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

inline void UnmapPages(void* p, size_t bytes) {
  if (p) munmap(p, bytes);
}

}  // namespace memframe::agent
