// Allocates kExitBlocks blocks, gives the agent time to stream them, then
// leaves the way argv[1] says: return, exit, _exit, quick_exit, abort
// (SIGABRT) or kill (SIGKILL to itself). Whatever was streamed must be in
// the capture whichever way the program ends.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "host_truth.h"

using namespace memframe::targets;

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "return";
  static void* keep[kExitBlocks];
  for (int i = 0; i < kExitBlocks; ++i) keep[i] = malloc(kExitBlockSize);
  std::printf("exit_paths %s\n", how);
  std::fflush(stdout);
  // The writer streams every few ms; 300 ms is plenty.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (!strcmp(how, "exit")) exit(3);
  if (!strcmp(how, "_exit")) _exit(4);
  if (!strcmp(how, "quick_exit")) quick_exit(5);
  if (!strcmp(how, "abort")) {
    signal(SIGABRT, SIG_DFL);
    abort();
  }
  if (!strcmp(how, "kill")) kill(getpid(), SIGKILL);
  return keep[0] ? 0 : 1;
}
