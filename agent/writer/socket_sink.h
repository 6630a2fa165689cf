// Where encoded packets go: a connected Unix stream socket to the recorder.
// Packets are framed into one large mmap'd output buffer and written in big
// chunks. The first write error detaches: the game runs on, unprofiled.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memframe/wire_encoder.h"

namespace memframe::agent {

class SocketSink {
 public:
  // Connects to the Unix socket at `path`; false (with a warning) on failure.
  bool Connect(const char* path);
  // Uses an already connected stream socket (tests use a socketpair).
  bool Adopt(int fd);
  void Close();
  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // Room for one packet; the returned writer encodes the Packet's fields.
  // Call EndPacket after encoding. Flushes first if `reserve` bytes are not
  // free.
  wire::ProtoWriter BeginPacket(size_t reserve);
  void EndPacket(const wire::ProtoWriter& packet);

  // Sends everything buffered; false once the recorder is gone.
  bool Flush();
  size_t buffered() const { return used_; }
  uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  int fd_ = -1;
  uint8_t* buffer_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  uint64_t bytes_sent_ = 0;
};

}  // namespace memframe::agent
