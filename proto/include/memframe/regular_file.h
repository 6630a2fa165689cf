// Opening a file that a capture (or a live socket) named: only a regular
// file, and never waiting in open(). A FIFO blocks open() until a writer
// comes, a device may do anything when opened, so the type is checked
// before (stat) and after (fstat on the descriptor, in case the name was
// swapped in between), and the open itself does not block (O_NONBLOCK, which
// regular files ignore).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace memframe::wire {

// A descriptor (close-on-exec, blocking again) of the regular file at
// `path`, following symbolic links; -1 with *error ("PATH: why") otherwise.
inline int OpenRegularFile(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = path + ": " + why;
    return -1;
  };
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return fail(strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fail(strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail("not a regular file");
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace memframe::wire
