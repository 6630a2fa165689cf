#include "attach/traced_threads.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "attach/target_process.h"
#include "attach/thread_state.h"

namespace memframe::injector {

bool TracedThreads::SeizeAll(std::string* error) {
  for (int round = 0; round < 100; ++round) {
    bool any_new = false;
    for (pid_t tid : ListThreads(pid_)) {
      if (threads_.count(tid)) continue;
      if (ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACECLONE)) != 0) {
        if (errno == ESRCH) continue;  // it exited meanwhile
        int e = errno;
        if (threads_.empty()) {
          *error = e == EPERM ? PtraceDeniedHelp(pid_) : "cannot trace process " + std::to_string(pid_) + ": " + strerror(e);
          return false;
        }
        *error = "cannot trace thread " + std::to_string(tid) + ": " + strerror(e);
        return false;
      }
      threads_[tid] = Thread{};
      ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
      any_new = true;
    }
    if (!any_new) return !threads_.empty() || (*error = "no process " + std::to_string(pid_), false);
  }
  *error = "process " + std::to_string(pid_) + " keeps creating threads; cannot stop them all";
  return false;
}

bool TracedThreads::WaitAllStopped(std::string* error) {
  for (;;) {
    pid_t waiting = 0;
    for (auto& [tid, t] : threads_)
      if (!t.stopped) waiting = tid;
    if (!waiting) return !threads_.empty() || (*error = "process " + std::to_string(pid_) + " exited", false);
    if (!WaitStop(waiting, error)) return false;
  }
}

bool TracedThreads::RunFor(int ms, std::string* error) {
  for (auto& [tid, t] : threads_) Resume(tid, t);
  timespec nap{0, ms * 1000000L};
  nanosleep(&nap, nullptr);
  for (auto& [tid, t] : threads_) ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
  return WaitAllStopped(error);
}

void TracedThreads::DetachAllBut(pid_t keep) {
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->first == keep) {
      ++it;
      continue;
    }
    Detach(it->first, it->second);
    it = threads_.erase(it);
  }
}

void TracedThreads::DetachAll() {
  for (auto& [tid, t] : threads_) Detach(tid, t);
  threads_.clear();
}

bool TracedThreads::WaitStop(pid_t tid, std::string* error) {
  int status = 0;
  pid_t got = waitpid(tid, &status, __WALL);
  if (got < 0) {
    if (errno == EINTR) return true;
    threads_.erase(tid);  // gone
    return true;
  }
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    threads_.erase(tid);
    return true;
  }
  if (!WIFSTOPPED(status)) return true;
  Thread& t = threads_[tid];
  t.stopped = true;
  int event = status >> 16;
  int sig = WSTOPSIG(status);
  if (event == PTRACE_EVENT_CLONE) {
    unsigned long child = 0;
    ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child);
    if (child && !threads_.count(static_cast<pid_t>(child))) threads_[static_cast<pid_t>(child)] = Thread{};
  } else if (event == PTRACE_EVENT_STOP) {
    RewindWaitCutByStop(pid_, tid);
  } else if (event == 0 && sig != SIGTRAP) {
    t.pending_signal = sig;  // a signal-delivery stop: hold it for the resume
  }
  (void)error;
  return true;
}

bool TracedThreads::RunAlone(pid_t tid, uint64_t* ip) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
  const uint64_t from = regs.rip;
  // A moment long enough to be scheduled (an interrupt right away stops it
  // before its first instruction), longer each time it did not move.
  for (long moment_ns = 50'000; moment_ns <= 3'200'000; moment_ns *= 2) {
    auto it = threads_.find(tid);
    if (it == threads_.end() || !it->second.stopped || it->second.pending_signal) return false;
    if (ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0) return false;
    it->second.stopped = false;
    timespec moment{0, moment_ns};
    nanosleep(&moment, nullptr);
    ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    std::string ignored;
    for (;;) {
      it = threads_.find(tid);
      if (it == threads_.end()) return false;  // it exited
      if (it->second.stopped) break;
      WaitStop(tid, &ignored);
    }
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
    *ip = regs.rip;
    if (it->second.pending_signal) return false;
    if (regs.rip != from) return true;
  }
  return true;
}

void TracedThreads::Resume(pid_t tid, Thread& t) {
  if (!t.stopped) return;
  ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(t.pending_signal)));
  t.pending_signal = 0;
  t.stopped = false;
}

void TracedThreads::Detach(pid_t tid, Thread& t) {
  if (!t.stopped) {
    // Detach needs a stopped tracee.
    ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    std::string ignored;
    WaitStop(tid, &ignored);
  }
  ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(t.pending_signal)));
}

}  // namespace memframe::injector
