#include "writer/socket_sink.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "buffer/page_allocator.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

namespace {
constexpr size_t kOutputBytes = 16u << 20;
}

bool SocketSink::Adopt(int fd) {
  if (!buffer_) {
    buffer_ = static_cast<uint8_t*>(MapPages(kOutputBytes));
    if (!buffer_) return false;
    capacity_ = kOutputBytes;
  }
  fd_ = fd;
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
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  used_ = 0;
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
    return;
  }
  wire::WritePaddedVarint(buffer_ + used_, packet.size(), wire::kNestedLengthBytes);
  used_ += wire::kNestedLengthBytes + packet.size();
}

bool SocketSink::Flush() {
  if (fd_ < 0) {
    used_ = 0;
    return false;
  }
  size_t sent = 0;
  while (sent < used_) {
    ssize_t n = send(fd_, buffer_ + sent, used_ - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Warn("the recorder went away (%s); the program continues without memframe",
           n < 0 ? strerror(errno) : "connection closed");
      Close();
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  bytes_sent_ += used_;
  used_ = 0;
  return true;
}

}  // namespace memframe::agent
