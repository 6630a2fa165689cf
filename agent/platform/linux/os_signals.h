// Signals on Linux: the agent's own threads, and a hook's thread while it
// holds what a signal handler of the game's would wait for, block every
// signal for a scope.
#pragma once

#include <pthread.h>
#include <signal.h>

namespace memframe::agent {

class AllSignalsBlocked {
 public:
  AllSignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_);
  }
  ~AllSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  AllSignalsBlocked(const AllSignalsBlocked&) = delete;
  AllSignalsBlocked& operator=(const AllSignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

}  // namespace memframe::agent
