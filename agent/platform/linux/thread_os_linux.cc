#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "buffer/thread_os.h"

namespace memframe::agent::thread_os {

namespace {
// The key's destructor is how we learn that a thread exits. Keys below
// PTHREAD_KEY_2NDLEVEL_SIZE (32) store their value without allocating;
// ours is created at start-up, among the first.
pthread_key_t g_exit_key;
std::atomic<bool> g_exit_key_ready{false};
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

void OnThreadExit(void*) { MarkCurrentThreadExiting(); }
void CreateExitKey() {
  if (pthread_key_create(&g_exit_key, OnThreadExit) == 0) g_exit_key_ready.store(true, std::memory_order_release);
}
}  // namespace

uint32_t ThisThreadId() { return static_cast<uint32_t>(syscall(SYS_gettid)); }
uint32_t ThisProcessId() { return static_cast<uint32_t>(syscall(SYS_getpid)); }

// With open/read, not stdio: the writer thread never calls malloc, so glibc
// never gives it an arena of its own (64 MiB of address space, which counts
// against a program's RLIMIT_AS).
void ReadThreadName(uint32_t tid, char* name, size_t size) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
  name[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, name, size - 1);
  close(fd);
  name[n > 0 ? n : 0] = '\0';
  name[strcspn(name, "\n")] = '\0';
}

void SleepMicros(long us) {
  timespec ts{0, us * 1000};
  nanosleep(&ts, nullptr);
}

void RegisterThreadExit(ThreadBuffer* b) {
  pthread_once(&g_exit_key_once, CreateExitKey);
  if (g_exit_key_ready.load(std::memory_order_acquire)) pthread_setspecific(g_exit_key, b);
}

// A short-lived worker may be named and gone between two looks of the
// writer at /proc; keep its last name here (prctl does not allocate).
void KeepExitingThreadName(ThreadBuffer* b) { prctl(PR_GET_NAME, b->exit_name, 0, 0, 0); }

// Signal 0 checks existence only. ESRCH: the kernel has reaped the thread,
// so it can push nothing more.
bool ThreadGone(uint32_t tid) {
  long rc = syscall(SYS_tgkill, getpid(), tid, 0);
  return rc != 0 && errno == ESRCH;
}

// A fork() child forgot its buffers in its atfork handler, but a raw fork or
// clone system call runs no handler, and its copy of the agent believes it
// records while its writer is in the parent. A child that shares the
// parent's memory (vfork, CLONE_VM) is drained by the parent's writer; one
// with memory of its own never is. kcmp tells the two apart; where it is not
// allowed (seccomp, a process that is not dumpable, a parent that is gone)
// the answer is kUnknown.
Drainer WhoDrains(uint32_t consumer_pid, bool /*consumer_running*/) {
  const uint32_t self = ThisProcessId();
  if (consumer_pid == self) return Drainer::kWriter;
  long vm = syscall(SYS_kcmp, self, consumer_pid, KCMP_VM, 0, 0);
  if (vm == 0) return Drainer::kWriter;
  return vm > 0 ? Drainer::kNone : Drainer::kUnknown;
}

}  // namespace memframe::agent::thread_os
