// Allocation churn the target programs make: `blocks` malloc/free pairs of
// `size` bytes each.
#pragma once

#include <cstddef>
#include <cstdlib>

namespace memframe::targets {

// The volatile store keeps the compiler from eliding the malloc/free pair.
inline void* volatile g_churned_block;

inline void Churn(int blocks, size_t size) {
  for (int i = 0; i < blocks; ++i) {
    g_churned_block = malloc(size);
    free(g_churned_block);
  }
}

}  // namespace memframe::targets
