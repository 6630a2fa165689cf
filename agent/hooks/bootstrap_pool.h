// While dlsym resolves the real allocator, dlsym itself calls calloc/malloc.
// Those few early blocks come from this static pool. free() and realloc()
// recognise pool pointers by address; pool memory is never reused (it is
// only needed for a handful of small blocks at start-up).
#pragma once

#include <cstddef>

namespace memframe::agent {

// 64 KiB: glibc's dlsym needs well under 1 KiB (one dlerror buffer);
// the rest is margin for unusual loaders.
constexpr size_t kBootstrapPoolBytes = 64 * 1024;

void* BootstrapAlloc(size_t size, size_t alignment = 16);
bool IsBootstrapBlock(const void* p);
// Bytes available in a pool block (what the caller asked for, rounded up).
size_t BootstrapBlockSize(const void* p);

}  // namespace memframe::agent
