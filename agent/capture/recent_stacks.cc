#include "capture/recent_stacks.h"

#include <cstring>

#include "capture/stack_table.h"

namespace memframe::agent {

uint32_t InternStackRecent(RecentStacks& recent, const uint64_t* frames, int depth) {
  const size_t bytes = sizeof(uint64_t) * static_cast<size_t>(depth);
  for (int i = 0; i < RecentStacks::kEntries; ++i) {
    // Depth and innermost frame first: most misses end there.
    if (recent.depth[i] == depth && recent.id[i] != 0 && recent.frames[i][0] == frames[0] &&
        memcmp(recent.frames[i], frames, bytes) == 0)
      return recent.id[i];
  }
  uint32_t id = InternStack(frames, depth);
  if (id == 0) return 0;  // table full: nothing worth remembering
  int slot = static_cast<int>(recent.next++ % RecentStacks::kEntries);
  recent.id[slot] = id;
  recent.depth[slot] = depth;
  memcpy(recent.frames[slot], frames, bytes);
  return id;
}

}  // namespace memframe::agent
