#include "capture/marker_table.h"

#include <atomic>
#include <cstring>

#include "hooks/present_hooks.h"

namespace memframe::agent {

namespace {
constexpr uint32_t kMaxMarkers = 1024;
constexpr size_t kMaxNameBytes = 64;

char g_names[kMaxMarkers][kMaxNameBytes];
std::atomic<uint32_t> g_count{0};  // published entries
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
}  // namespace

uint32_t InternMarker(const char* name) {
  if (!name) return 0;
  while (g_lock.test_and_set(std::memory_order_acquire)) {
  }
  uint32_t count = g_count.load(std::memory_order_relaxed);
  uint32_t found = 0;
  for (uint32_t i = 0; i < count && !found; ++i)
    if (strncmp(g_names[i], name, kMaxNameBytes - 1) == 0) found = kFirstDynamicMarker + i;
  if (!found && count < kMaxMarkers) {
    strncpy(g_names[count], name, kMaxNameBytes - 1);
    g_count.store(count + 1, std::memory_order_release);
    found = kFirstDynamicMarker + count;
  }
  g_lock.clear(std::memory_order_release);
  return found;
}

uint32_t MarkerEnd() { return kFirstDynamicMarker + g_count.load(std::memory_order_acquire); }

const char* MarkerName(uint32_t id) {
  if (id < kFirstDynamicMarker) return FixedMarkerName(id);
  return g_names[id - kFirstDynamicMarker];
}

}  // namespace memframe::agent
