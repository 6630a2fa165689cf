// How many pages of a range are resident (mincore): what the agent's own
// memory adds to the game's RSS, checked page by page.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memframe::agent {

// Resident pages among those that hold [p, p + bytes).
inline size_t ResidentPages(const void* p, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes + kPage - 1) & ~(kPage - 1);
  std::vector<unsigned char> in((end - begin) / kPage);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return SIZE_MAX;
  size_t resident = 0;
  for (unsigned char v : in) resident += v & 1;
  return resident;
}

}  // namespace memframe::agent
