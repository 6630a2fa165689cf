// What static_jemalloc and reentry_allocator do once their own allocator is
// in place: each of several threads allocates through it and maps regions of
// its own, so the agent's first hook on every thread (the per-thread set-up
// of stack capture included) runs under the program's allocator.
#pragma once

#include <pthread.h>
#include <sys/mman.h>

#include <cstdio>
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

// With --wait-for-attach a program runs already, for `memframe attach`,
// driven line by line from stdin (as attach_workers.cc):
//   work       the workload once, then "done"
//   free-old   frees the kOwnOldBlocks blocks of kOwnOldBlockBytes made at
//              start-up (before any attach), then "freed"
//   end        returns, and the program ends as its plain run does
// "ready" is printed once the old blocks are made. True when every run of
// the workload finished.
inline bool RunOwnAllocatorWorkloadOnCommand() {
  void* old[kOwnOldBlocks];
  for (void*& block : old) block = malloc(kOwnOldBlockBytes);
  std::printf("ready\n");
  std::fflush(stdout);
  bool ok = true;
  char line[64];
  while (std::fgets(line, sizeof line, stdin)) {
    if (std::strcmp(line, "work\n") == 0) {
      ok = RunOwnAllocatorWorkload() && ok;
      std::printf("done\n");
    } else if (std::strcmp(line, "free-old\n") == 0) {
      for (void* block : old) free(block);
      std::printf("freed\n");
    } else if (std::strcmp(line, "end\n") == 0) {
      return ok;
    } else {
      std::printf("unknown command\n");
    }
    std::fflush(stdout);
  }
  return ok;
}

inline bool WaitsForAttach(int argc, char** argv) {
  return argc > 1 && std::strcmp(argv[1], "--wait-for-attach") == 0;
}

}  // namespace memframe::targets
