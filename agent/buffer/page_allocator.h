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

inline void UnmapPages(void* p, size_t bytes) {
  if (p) munmap(p, bytes);
}

}  // namespace memframe::agent
