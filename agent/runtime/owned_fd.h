// A file descriptor the agent keeps inside a host that may close any fd
// number, or all of them (daemons, Python's os.closerange, sandboxes), and
// then reuse the numbers for files and sockets of its own.
//
// The agent's fds sit above the host's soft RLIMIT_NOFILE (else at high
// numbers) with close-on-exec, so that the host's ordinary opens (which
// take the lowest free number) never land on them nor run out early, and
// every use first checks that the number still names the file the agent
// opened (its device and inode). A number the host closed or reused is never
// written to, waited on or closed: the agent forgets it. Between the check and
// the use the host could still close and reuse the number from another thread;
// the window is one system call wide.
#pragma once

#include <sys/types.h>

#include <atomic>

namespace memframe::agent {

class OwnedFd {
 public:
  // Moves `fd` to a high number (close-on-exec) and remembers what it names;
  // `fd` itself is closed. False (and `fd` left as it was) if `fd` is not open.
  bool Take(int fd);
  // The fd, if its number still names the agent's file; otherwise -1, and the
  // fd is forgotten (the host closed or reused it).
  int Get();
  // Closes the fd if it is still the agent's; forgets it either way.
  void Close();
  // Whether an fd is held (not checked: Get checks).
  bool held() const { return fd_.load(std::memory_order_relaxed) >= 0; }

 private:
  std::atomic<int> fd_{-1};
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

}  // namespace memframe::agent
