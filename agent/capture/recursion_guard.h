// One thread-local flag says "this thread is inside memframe". Every hook
// takes it first: an allocation made while it is held (by libunwind, dlsym,
// the loader, the real allocator calling itself, or the writer thread, which
// holds it for its whole life) goes straight to the real function and is
// never recorded. Initial-exec TLS: reading it costs one instruction and
// never allocates, unlike a dynamic TLS access.
#pragma once

namespace memframe::agent {

extern __thread bool t_inside_memframe __attribute__((tls_model("initial-exec")));

class RecursionGuard {
 public:
  RecursionGuard() : acquired_(!t_inside_memframe) { t_inside_memframe = true; }
  ~RecursionGuard() {
    if (acquired_) t_inside_memframe = false;
  }
  RecursionGuard(const RecursionGuard&) = delete;
  RecursionGuard& operator=(const RecursionGuard&) = delete;

  // False when the thread was already inside memframe: the caller must pass
  // straight through.
  bool acquired() const { return acquired_; }

 private:
  bool acquired_;
};

}  // namespace memframe::agent
