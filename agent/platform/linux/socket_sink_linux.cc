// The Linux side of writer/socket_sink.h: a Unix stream socket to the
// recorder, held as an OwnedFd and checked before every send.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "buffer/page_allocator.h"
#include "runtime/diagnostics.h"
#include "writer/socket_sink.h"

namespace memframe::agent {

namespace {
// Longest wait for room in the socket before the fd is checked again.
constexpr int kSendWaitMs = 100;
}

bool SocketSink::Adopt(int fd) {
  if (!MapBuffer()) return false;
  if (fd >= 0 && !socket_.Take(fd)) return false;
  return true;
}

bool SocketSink::Connect(const char* path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof(addr.sun_path)) {
    Warn("socket path too long: %s", path);
    return false;
  }
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    Warn("cannot connect to the recorder at %s: %s; not recording", path, strerror(errno));
    close(fd);
    return false;
  }
  if (!Adopt(fd)) {
    close(fd);
    return false;
  }
  return true;
}

void SocketSink::Close() {
  socket_.Close();
  used_ = 0;
}

int SocketSink::fd() { return socket_.Get(); }

bool SocketSink::SendBuffered() {
  size_t sent = 0;
  while (sent < used_) {
    int fd = socket_.Get();
    if (fd < 0) {
      // The program closed the socket (or put a file of its own at its
      // number): the stream ends here, without its EndOfStream, and the
      // recorder's summary says so.
      Warn("the program closed memframe's connection to the recorder; the program continues without memframe");
      Close();
      return false;
    }
    ssize_t n = send(fd, buffer_ + sent, used_ - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd room{fd, POLLOUT, 0};
      poll(&room, 1, kSendWaitMs);
      continue;
    }
    Warn("the recorder went away (%s); the program continues without memframe",
         n < 0 ? strerror(errno) : "connection closed");
    Close();
    return false;
  }
  return true;
}

}  // namespace memframe::agent
