#include "writer/socket_sink.h"

#ifndef _WIN32
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

#include <cstring>

#include "buffer/page_allocator.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

#ifndef _WIN32  // platform/windows/socket_sink_windows.cc
namespace {
// Longest wait for room in the socket before the fd is checked again.
constexpr int kSendWaitMs = 100;
}

bool SocketSink::Adopt(int fd) {
  if (!buffer_) {
    buffer_ = static_cast<uint8_t*>(MapPages(kOutputBytes));
    if (!buffer_) return false;
    capacity_ = kOutputBytes;
  }
  if (fd >= 0 && !fd_.Take(fd)) return false;
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
  fd_.Close();
  used_ = 0;
}
#endif  // _WIN32

void SocketSink::Release() {
  Close();
  UnmapPages(buffer_, capacity_);
  buffer_ = nullptr;
  capacity_ = 0;
}

wire::ProtoWriter SocketSink::BeginPacket(size_t reserve) {
  if (capacity_ - used_ < reserve + wire::kNestedLengthBytes) Flush();
  // The frame length is patched in EndPacket as a padded varint.
  uint8_t* start = buffer_ + used_ + wire::kNestedLengthBytes;
  return wire::ProtoWriter(start, capacity_ - used_ - wire::kNestedLengthBytes);
}

void SocketSink::EndPacket(const wire::ProtoWriter& packet) {
  if (packet.overflow()) {
    Warn("internal: a packet did not fit its reserve; dropped");
    touched_ = capacity_;  // it may have written all of its room
    return;
  }
  wire::WritePaddedVarint(buffer_ + used_, packet.size(), wire::kNestedLengthBytes);
  used_ += wire::kNestedLengthBytes + packet.size();
  if (used_ > touched_) touched_ = used_;
}

void SocketSink::Sent() {
  bytes_sent_ += used_;
  used_ = 0;
  if (touched_ > kKeptBytes) {
    constexpr size_t kPage = 4096;
    const size_t end = (touched_ + kPage - 1) & ~(kPage - 1);
    DiscardPages(buffer_ + kKeptBytes, (end < capacity_ ? end : capacity_) - kKeptBytes);
  }
  touched_ = 0;
}

#ifndef _WIN32

bool SocketSink::Flush() {
  if (!fd_.held()) {
    used_ = 0;
    return false;
  }
  size_t sent = 0;
  while (sent < used_) {
    int fd = fd_.Get();
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
  Sent();
  return true;
}

#endif  // _WIN32

}  // namespace memframe::agent
