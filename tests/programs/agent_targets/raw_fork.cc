// A program that makes its child with a raw fork or clone system call, as
// some sandboxes and language runtimes do: no pthread_atfork handler runs,
// so the agent's copy in the child is not told it is a child. The child must
// run exactly as without memframe, whatever it allocates, and never touch
// the parent's stream.
//
// Usage: raw_fork fork|clone many|few
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "churn.h"
#include "host_truth.h"

using namespace memframe::targets;

// The child is given this long before the parent calls it hung.
constexpr int kChildLimitSeconds = 20;

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  bool use_clone = strcmp(argv[1], "clone") == 0;
  int child_blocks = strcmp(argv[2], "many") == 0 ? kRawChildManyBlocks : kRawChildFewBlocks;
  Churn(kRawParentBlocks, kRawParentSize);
  long pid = use_clone ? syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : syscall(SYS_fork);
  if (pid < 0) return 2;
  if (pid == 0) {
    Churn(child_blocks, kRawChildSize);
    static const char kDone[] = "child done\n";
    if (write(1, kDone, sizeof(kDone) - 1) < 0) _exit(4);
    exit(0);  // the exit path runs (the agent's destructor too)
  }
  // Bounded wait: a child that hangs is killed, and the program says so.
  int status = 0;
  for (int waited_ms = 0; waitpid(static_cast<pid_t>(pid), &status, WNOHANG) == 0; waited_ms += 10) {
    if (waited_ms >= kChildLimitSeconds * 1000) {
      kill(static_cast<pid_t>(pid), SIGKILL);
      waitpid(static_cast<pid_t>(pid), &status, 0);
      std::printf("child hung\n");
      return 3;
    }
    usleep(10000);
  }
  Churn(kRawParentBlocks, kRawParentSize);
  std::printf("parent done, child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
