// A program that allocates inside a signal handler while its main thread
// allocates in a tight loop (the C functions: a signal that lands inside
// libstdc++'s operator new but outside its malloc is a window of a few
// instructions the agent cannot tell from new's own malloc), so most signals
// land inside an allocator hook.
// What the handlers made must be recorded, or counted as not recorded: never
// lost silently. With the argument "fork" it then forks a child that exits
// at once: a followed child's stream counts only its own handlers' calls. The handler's size class is kept in glibc's per-thread
// cache (warmed before the first signal), so the handler never needs the
// arena lock the interrupted malloc may hold.
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

using namespace memframe::targets;

namespace {
std::atomic<int> g_handled{0};
std::atomic<bool> g_done{false};
pid_t g_main_tid = 0;

void OnSignal(int) {
  int saved = errno;
  void* block = malloc(kSignalBlockSize);
  if (block) memset(block, 1, kSignalBlockSize);
  free(block);
  g_handled.fetch_add(1, std::memory_order_release);
  errno = saved;
}

void* SendSignals(void*) {
  for (int i = 0; i < kSignals; ++i) {
    syscall(SYS_tgkill, getpid(), g_main_tid, SIGUSR1);
    while (g_handled.load(std::memory_order_acquire) <= i) sched_yield();
  }
  g_done.store(true, std::memory_order_release);
  return nullptr;
}
}  // namespace

int main(int argc, char** argv) {
  g_main_tid = static_cast<pid_t>(syscall(SYS_gettid));
  free(malloc(kSignalBlockSize));  // warms the handler's size class
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &action, nullptr);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);  // the sender thread inherits the block
  pthread_t sender;
  pthread_create(&sender, nullptr, SendSignals, nullptr);
  pthread_sigmask(SIG_UNBLOCK, &usr1, nullptr);
  // The loop's own events are bounded: on a loaded machine the signals'
  // round trips can take seconds, and a capture of every round the loop ran
  // meanwhile would be hundreds of millions of events. Past the cap, the
  // signals that are left land outside any hook.
  constexpr unsigned long kMaxRounds = 1ul << 20;
  unsigned long rounds = 0;
  while (!g_done.load(std::memory_order_acquire)) {
    if (rounds == kMaxRounds) {
      sched_yield();
      continue;
    }
    void* p = malloc(64);
    free(p);
    void* q = calloc(4, 100);
    free(q);
    ++rounds;
  }
  pthread_join(sender, nullptr);
  if (argc > 1 && std::strcmp(argv[1], "fork") == 0) {
    pid_t child = fork();
    if (child == 0) exit(0);  // the exit path ends a followed child's stream
    int status = 0;
    waitpid(child, &status, 0);
  }
  std::printf("signal handlers ran %d times\n", g_handled.load());
  return rounds > 0 ? 0 : 1;
}
