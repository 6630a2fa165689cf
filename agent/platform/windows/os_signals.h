// Signals on Windows: none interrupts a thread as a POSIX signal does (a
// console control event runs on a thread of its own), so there is nothing
// to block.
#pragma once

namespace memframe::agent {

class AllSignalsBlocked {
 public:
  AllSignalsBlocked() {}
  ~AllSignalsBlocked() {}  // user-provided: a scope guard, never an unused variable
  AllSignalsBlocked(const AllSignalsBlocked&) = delete;
  AllSignalsBlocked& operator=(const AllSignalsBlocked&) = delete;
};

}  // namespace memframe::agent
