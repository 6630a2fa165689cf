// The Windows side of buffer/page_allocator.h: the agent's own memory from
// VirtualAlloc, which the agent never hooks in its own module (its import
// table is left alone, iat_patch.h), so none of it shows in the profile.
#pragma once

#include <windows.h>

#include <cstddef>
#include <cstdint>

namespace memframe::agent {

// Reserved and committed at once: Windows charges committed pages to the
// commit limit but backs them only when touched, as Linux does.
inline void* MapPages(size_t bytes) { return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE); }

inline void UnmapPages(void* p, size_t) {
  if (p) VirtualFree(p, 0, MEM_RELEASE);
}

// Large pages need a privilege games do not hold: plain pages.
inline void* MapHugePages(size_t bytes) { return MapPages(bytes); }

// Touches each page from the writer thread, so game threads do not fault.
inline void PrefaultPages(void* p, size_t bytes) {
  if (!p || bytes == 0) return;
  for (size_t offset = 0; offset < bytes; offset += 4096)
    __atomic_fetch_or(reinterpret_cast<unsigned long long*>(static_cast<char*>(p) + offset), 0ull, __ATOMIC_RELAXED);
}

// Decommitted and committed again: zero pages, out of the working set until
// touched (MEM_RESET would leave them resident until Windows trims it).
inline void DiscardPages(void* p, size_t bytes) {
  if (!p || bytes == 0) return;
  VirtualFree(p, bytes, MEM_DECOMMIT);
  VirtualAlloc(p, bytes, MEM_COMMIT, PAGE_READWRITE);
}

}  // namespace memframe::agent
