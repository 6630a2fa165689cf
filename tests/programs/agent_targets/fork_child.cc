// A program that forks: the child (untracked by default) must run exactly
// as without memframe, and must not disturb the parent's stream.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "host_truth.h"

using namespace memframe::targets;

// The volatile store keeps the compiler from eliding the malloc/free pair.
static void* volatile g_last_block;

static void Churn(int blocks) {
  for (int i = 0; i < blocks; ++i) {
    g_last_block = malloc(kForkBlockSize);
    free(g_last_block);
  }
}

int main() {
  Churn(kParentBlocks);
  pid_t pid = fork();
  if (pid == 0) {
    Churn(kChildBlocks);
    std::printf("child done\n");
    std::fflush(stdout);
    exit(9);  // runs the exit path: a followed child flushes its stream there
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Churn(kParentBlocks);
  std::printf("parent done, child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
