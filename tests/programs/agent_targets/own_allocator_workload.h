// What static_jemalloc and reentry_allocator do once their own allocator is
// in place: each of several threads allocates through it and maps regions of
// its own, so the agent's first hook on every thread (the per-thread set-up
// of stack capture included) runs under the program's allocator.
#pragma once

#include <pthread.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include "host_truth.h"

namespace memframe::targets {

inline void* MapAndAllocate(void*) {
  for (int i = 0; i < kOwnRegions; ++i) {
    void* region = mmap(nullptr, kOwnRegionBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) abort();
    memset(region, i, 4096);
    void* block = malloc(100 + static_cast<size_t>(i));
    memset(block, i, 100);
    free(block);
  }
  return nullptr;
}

// True when every thread finished its work.
inline bool RunOwnAllocatorWorkload() {
  pthread_t threads[kOwnAllocatorThreads];
  for (pthread_t& t : threads)
    if (pthread_create(&t, nullptr, MapAndAllocate, nullptr) != 0) return false;
  MapAndAllocate(nullptr);
  for (pthread_t& t : threads) pthread_join(t, nullptr);
  return true;
}

}  // namespace memframe::targets
