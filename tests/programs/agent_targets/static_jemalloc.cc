// A program whose executable links jemalloc statically, as some games and
// engines do: its malloc is jemalloc's, bound before any preloaded library,
// and jemalloc's first mmap runs inside its own initialisation lock. Under
// the agent that mmap reaches the agent's mmap hook; anything the hook does
// that allocates waits on that lock for ever. With --wait-for-attach it
// waits for `memframe attach` (own_allocator_workload.h).
#include <cstdio>

#include "own_allocator_workload.h"

using namespace memframe::targets;

int main(int argc, char** argv) {
  bool ok = WaitsForAttach(argc, argv) ? RunOwnAllocatorWorkloadOnCommand() : RunOwnAllocatorWorkload();
  std::printf("static jemalloc %s\n", ok ? "done" : "failed");
  return ok ? 0 : 1;
}
