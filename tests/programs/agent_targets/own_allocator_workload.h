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

// Threads that call malloc and free in a tight loop until told to stop, so
// that an attach patches (and a detach restores) entries threads are
// running through.
struct SpinningAllocators {
  static constexpr int kThreads = 3;
  pthread_t threads[kThreads];
  volatile bool spin = false;
  bool running = false;

  static void* Loop(void* self) {
    auto* s = static_cast<SpinningAllocators*>(self);
    while (__atomic_load_n(&s->spin, __ATOMIC_ACQUIRE)) {
      void* block = malloc(48);
      __asm__ volatile("" : : "r"(block) : "memory");
      free(block);
    }
    return nullptr;
  }
  bool Start() {
    __atomic_store_n(&spin, true, __ATOMIC_RELEASE);
    for (pthread_t& t : threads)
      if (pthread_create(&t, nullptr, Loop, this) != 0) return false;
    running = true;
    return true;
  }
  void Stop() {
    __atomic_store_n(&spin, false, __ATOMIC_RELEASE);
    if (running)
      for (pthread_t& t : threads) pthread_join(t, nullptr);
    running = false;
  }
};

// With --wait-for-attach a program runs already, for `memframe attach`,
// driven line by line from stdin (as attach_workers.cc):
//   work       the workload once, then "done"
//   free-old   frees the kOwnOldBlocks blocks of kOwnOldBlockBytes made at
//              start-up (before any attach), then "freed"
//   spin-on / spin-off   SpinningAllocators start ("spinning") / stop ("still")
//   end        returns, and the program ends as its plain run does
// "ready" is printed once the old blocks are made. True when every run of
// the workload finished.
struct OwnAllocatorCalls {
  bool (*workload)();
  void* (*make)(size_t);  // the old blocks'
  void (*drop)(void*);
};
inline void* MallocBlock(size_t size) { return malloc(size); }
inline void FreeBlock(void* block) { free(block); }

inline bool RunOwnAllocatorWorkloadOnCommand(
    const OwnAllocatorCalls& calls = {RunOwnAllocatorWorkload, MallocBlock, FreeBlock}) {
  void* old[kOwnOldBlocks];
  for (void*& block : old) block = calls.make(kOwnOldBlockBytes);
  std::printf("ready\n");
  std::fflush(stdout);
  bool ok = true;
  SpinningAllocators spinning;
  char line[64];
  while (std::fgets(line, sizeof line, stdin)) {
    if (std::strcmp(line, "work\n") == 0) {
      ok = calls.workload() && ok;
      std::printf("done\n");
    } else if (std::strcmp(line, "free-old\n") == 0) {
      for (void* block : old) calls.drop(block);
      std::printf("freed\n");
    } else if (std::strcmp(line, "spin-on\n") == 0) {
      ok = spinning.Start() && ok;
      std::printf("spinning\n");
    } else if (std::strcmp(line, "spin-off\n") == 0) {
      spinning.Stop();
      std::printf("still\n");
    } else if (std::strcmp(line, "end\n") == 0) {
      spinning.Stop();
      return ok;
    } else {
      std::printf("unknown command\n");
    }
    std::fflush(stdout);
  }
  spinning.Stop();
  return ok;
}

inline bool WaitsForAttach(int argc, char** argv) {
  return argc > 1 && std::strcmp(argv[1], "--wait-for-attach") == 0;
}

}  // namespace memframe::targets
