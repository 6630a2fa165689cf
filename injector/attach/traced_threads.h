// Every thread of a running process, held in ptrace stops: the injector
// (ptrace_injector.h) and the code patcher (code_patcher.h) both need the
// whole process still, threads that are being created meanwhile too.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

namespace memframe::injector {

class TracedThreads {
 public:
  struct Thread {
    bool stopped = false;
    int pending_signal = 0;  // a signal that stopped it, to be delivered on resume
  };

  explicit TracedThreads(pid_t pid) : pid_(pid) {}
  ~TracedThreads() { DetachAll(); }
  TracedThreads(const TracedThreads&) = delete;
  TracedThreads& operator=(const TracedThreads&) = delete;

  // Seizes and interrupts every thread (PTRACE_O_TRACECLONE catches those
  // being created meanwhile).
  bool SeizeAll(std::string* error);

  // Waits until every thread is in a ptrace stop.
  bool WaitAllStopped(std::string* error);

  // Lets every thread run (delivering the signals held back), then stops
  // them all again after `ms`.
  bool RunFor(int ms, std::string* error);

  // Detaches every thread but `keep`; they run on.
  void DetachAllBut(pid_t keep);
  void DetachAll();

  // Lets the stopped `tid` run alone for a moment (the others stay
  // stopped) and stops it again; its instruction pointer then. Not a
  // single step: a tracer killed during one would leave the thread's trap
  // flag set, and the game dies of the SIGTRAP. False if it cannot (a signal
  // waits for it, which the run would lose, or it stopped for one).
  bool RunAlone(pid_t tid, uint64_t* ip);

  // Waits for one stop of `tid`; new threads from clone events join the set.
  bool WaitStop(pid_t tid, std::string* error);

  pid_t pid() const { return pid_; }
  size_t size() const { return threads_.size(); }
  const std::map<pid_t, Thread>& threads() const { return threads_; }

 private:
  void Resume(pid_t tid, Thread& t);
  void Detach(pid_t tid, Thread& t);

  pid_t pid_;
  std::map<pid_t, Thread> threads_;
};

}  // namespace memframe::injector
