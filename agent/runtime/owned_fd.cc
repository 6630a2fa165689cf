#include "runtime/owned_fd.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>

namespace memframe::agent {

namespace {

// Far above what programs usually hold open; under a tight RLIMIT_NOFILE,
// three quarters of the way up (a host that runs out of numbers takes the
// lowest free ones first, so ours are the last it would reuse).
constexpr int kPreferredFloor = 1000;
// Numbers the agent may need above the program's soft limit (its stderr
// copy, its socket, libunwind's pipe), with room to spare.
constexpr rlim_t kAboveLimit = 16;

int HighFloor() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kPreferredFloor;
  rlim_t floor = limit.rlim_cur - limit.rlim_cur / 4;
  if (floor > static_cast<rlim_t>(kPreferredFloor)) return kPreferredFloor;
  return floor > 3 ? static_cast<int>(floor) : 3;
}

// A close-on-exec copy of `fd` at or above the soft RLIMIT_NOFILE, where
// none of the program's own numbers can ever be (the kernel lets a number
// above the limit stay open), the soft limit raised for the one dup within
// the hard one; -1 if it cannot.
int DupAboveLimit(int fd) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur > static_cast<rlim_t>(INT32_MAX) - kAboveLimit)
    return -1;
  rlimit raised = limit;
  raised.rlim_cur = limit.rlim_cur + kAboveLimit;
  if (limit.rlim_max != RLIM_INFINITY && raised.rlim_cur > limit.rlim_max) return -1;
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) return -1;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(limit.rlim_cur));
  setrlimit(RLIMIT_NOFILE, &limit);
  return moved;
}

// A close-on-exec copy of `fd` above the soft limit, else at a high number
// if one is free, else at the lowest free number, else `fd` itself made
// close-on-exec.
int MoveHigh(int fd) {
  int moved = DupAboveLimit(fd);
  if (moved < 0) moved = fcntl(fd, F_DUPFD_CLOEXEC, HighFloor());
  if (moved < 0) moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0) {
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
  }
  close(fd);
  return moved;
}

}  // namespace

bool OwnedFd::Take(int fd) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return false;
  Close();
  device_ = st.st_dev;
  inode_ = st.st_ino;
  fd_.store(MoveHigh(fd), std::memory_order_release);
  return true;
}

int OwnedFd::Get() {
  int fd = fd_.load(std::memory_order_acquire);
  if (fd < 0) return -1;
  struct stat st {};
  if (fstat(fd, &st) == 0 && st.st_dev == device_ && st.st_ino == inode_) return fd;
  fd_.store(-1, std::memory_order_release);  // not ours any more: never touch that number again
  return -1;
}

void OwnedFd::Close() {
  int fd = Get();
  if (fd >= 0) close(fd);
  fd_.store(-1, std::memory_order_release);
}

}  // namespace memframe::agent
