// Splits an agent's byte stream into packets: each frame is a varint length
// (possibly padded, see proto/FORMAT.md) followed by that many bytes of a
// serialized Packet. Bytes arrive in arbitrary pieces; the reader keeps the
// unfinished tail and hands out complete packets as views into its buffer,
// so the recorder copies nothing per packet.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace memframe::injector {

struct PacketView {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

class PacketStream {
 public:
  enum class Next { kPacket, kNeedMore, kError };

  // `read_chunk_bytes` is how much room each read gets: large reads keep the
  // syscall count low at tens of millions of events a second.
  explicit PacketStream(size_t read_chunk_bytes = 1u << 20);

  // Free space at the end of the buffer (at least read_chunk_bytes) for the
  // caller to fill, followed by Commit(n) with the number of bytes written.
  // Invalidates views returned by NextPacket.
  std::span<uint8_t> WritableSpace();
  void Commit(size_t bytes);

  // One read() from `fd` into WritableSpace (retries EINTR). Returns what
  // read() returned: bytes read, 0 at end of stream, -1 with errno set.
  ssize_t ReadFrom(int fd);

  // Copies bytes in; for sources that are not file descriptors, and tests.
  void Append(const void* data, size_t size);

  // The next complete packet, if there is one. After kError the stream is
  // unusable and error() says why; the view of kPacket stays valid until the
  // next WritableSpace / ReadFrom / Append.
  Next NextPacket(PacketView* packet);

  // Bytes received but not yet returned as a packet (a non-zero value at end
  // of stream means the peer stopped in the middle of a packet).
  size_t pending_bytes() const { return end_ - begin_; }
  const std::string& error() const { return error_; }

 private:
  void MakeRoom();

  size_t read_chunk_;
  std::unique_ptr<uint8_t[]> buffer_;
  size_t capacity_ = 0;
  size_t begin_ = 0;  // first byte not yet handed out
  size_t end_ = 0;    // one past the last byte received
  std::string error_;
};

}  // namespace memframe::injector
