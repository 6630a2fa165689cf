#include "hooks/bootstrap_pool.h"

#include <atomic>
#include <cstdint>
#include <cstring>

namespace memframe::agent {

namespace {
alignas(64) unsigned char g_pool[kBootstrapPoolBytes];
std::atomic<size_t> g_used{0};

// Each block is preceded by its size, so realloc can copy it out.
struct BlockHeader {
  size_t size;
  size_t pad;
};
}  // namespace

void* BootstrapAlloc(size_t size, size_t alignment) {
  if (alignment < alignof(BlockHeader)) alignment = alignof(BlockHeader);
  size_t rounded = (size + 15) & ~size_t{15};
  size_t start = g_used.load(std::memory_order_relaxed);
  for (;;) {
    size_t header_at = ((start + sizeof(BlockHeader) + alignment - 1) & ~(alignment - 1)) - sizeof(BlockHeader);
    size_t end = header_at + sizeof(BlockHeader) + rounded;
    if (end > kBootstrapPoolBytes) return nullptr;  // caller sees ENOMEM
    if (g_used.compare_exchange_weak(start, end, std::memory_order_relaxed)) {
      auto* header = reinterpret_cast<BlockHeader*>(g_pool + header_at);
      header->size = rounded;
      void* block = header + 1;
      memset(block, 0, rounded);  // calloc semantics for every block
      return block;
    }
  }
}

bool IsBootstrapBlock(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto begin = reinterpret_cast<uintptr_t>(g_pool);
  return a >= begin && a < begin + kBootstrapPoolBytes;
}

size_t BootstrapBlockSize(const void* p) { return (static_cast<const BlockHeader*>(p) - 1)->size; }

}  // namespace memframe::agent
