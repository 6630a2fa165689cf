#include "capture/allocator_table.h"

#include <atomic>
#include <cstring>

namespace memframe::agent {

namespace {
constexpr uint32_t kMaxAllocators = 256;

AllocatorEntry g_entries[kMaxAllocators];
std::atomic<uint32_t> g_count{0};  // published entries
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
}  // namespace

uint32_t DeclareAllocator(const char* name, uint32_t kind, uint64_t base, uint64_t capacity,
                          const AllocatorOrigin& origin) {
  while (g_lock.test_and_set(std::memory_order_acquire)) {
  }
  uint32_t count = g_count.load(std::memory_order_relaxed);
  uint32_t id = 0;
  if (count < kMaxAllocators) {
    AllocatorEntry& e = g_entries[count];
    strncpy(e.name, name ? name : "", sizeof(e.name) - 1);
    e.name[sizeof(e.name) - 1] = 0;
    e.kind = kind;
    e.base = base;
    e.capacity = capacity;
    e.origin = origin;
    g_count.store(count + 1, std::memory_order_release);
    id = count + 1;
  }
  g_lock.clear(std::memory_order_release);
  return id;
}

uint32_t AllocatorEnd() { return 1 + g_count.load(std::memory_order_acquire); }

const AllocatorEntry& AllocatorAt(uint32_t id) { return g_entries[id - 1]; }

}  // namespace memframe::agent
