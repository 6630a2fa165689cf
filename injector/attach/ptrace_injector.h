// memframe's own injector: loads the agent into a running process with
// ptrace and calls its attach entry, without gdb.
//
// 1. PTRACE_SEIZE every thread (PTRACE_O_TRACECLONE catches threads that
//    are being created meanwhile) and PTRACE_INTERRUPT it.
// 2. Pick a thread at a safe point: asleep in a blocking system call, or
//    running code outside libc, the loader and the C++ runtime (so that it
//    holds neither the allocator's nor the loader's lock, which dlopen
//    takes). If none is, let the process run a millisecond and look again.
// 3. Let every other thread go (they may hold a lock the call needs, so they
//    must run), and have the chosen one run dlopen(agent), dlsym(handle,
//    "memframe_attach") and memframe_attach(config) on paths that each end
//    with the thread putting its own state back (remote_thread.h): a
//    memframe killed at any instant leaves the game running on.
// 4. Detach. A system call the thread was in is re-entered.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace memframe::injector {

struct InjectResult {
  bool ok = false;
  std::string error;            // why not, when !ok
  int attach_status = 0;        // memframe_attach's return value
  double all_stopped_ms = 0;    // every thread stopped (looking for a safe point)
  double call_thread_ms = 0;    // the chosen thread away from its own code
  int threads = 0;              // threads stopped
  int safe_point_rounds = 0;    // times the process was let run to find a safe point
  pid_t call_thread = 0;
};

// Loads `agent` (a path as the process sees it) into `pid` and calls
// memframe_attach(config_path) there.
InjectResult InjectAgent(pid_t pid, const std::string& agent, const std::string& config_path);

}  // namespace memframe::injector
