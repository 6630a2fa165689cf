#include "packet_stream.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::injector {

PacketStream::PacketStream(size_t read_chunk_bytes) : read_chunk_(read_chunk_bytes > 0 ? read_chunk_bytes : 1) {}

void PacketStream::MakeRoom() {
  if (capacity_ - end_ >= read_chunk_) return;
  // Move the unfinished packet to the front first: it is usually small, and
  // this keeps the buffer from growing while packets flow.
  if (begin_ > 0) {
    memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (capacity_ - end_ >= read_chunk_) return;
  // Only a packet larger than a chunk gets here; growth is bounded by
  // kMaxPacketBytes because longer frames are rejected before being buffered.
  size_t new_capacity = capacity_ * 2 > end_ + read_chunk_ ? capacity_ * 2 : end_ + read_chunk_;
  auto bigger = std::make_unique_for_overwrite<uint8_t[]>(new_capacity);
  if (end_ > 0) memcpy(bigger.get(), buffer_.get(), end_);
  buffer_ = std::move(bigger);
  capacity_ = new_capacity;
}

std::span<uint8_t> PacketStream::WritableSpace() {
  MakeRoom();
  return {buffer_.get() + end_, capacity_ - end_};
}

void PacketStream::Commit(size_t bytes) { end_ += bytes; }

ssize_t PacketStream::ReadFrom(int fd) {
  std::span<uint8_t> space = WritableSpace();
  ssize_t n;
  do {
    n = read(fd, space.data(), space.size());
  } while (n < 0 && errno == EINTR);
  if (n > 0) Commit(static_cast<size_t>(n));
  return n;
}

void PacketStream::Append(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    std::span<uint8_t> space = WritableSpace();
    size_t n = size < space.size() ? size : space.size();
    memcpy(space.data(), bytes, n);
    Commit(n);
    bytes += n;
    size -= n;
  }
}

PacketStream::Next PacketStream::NextPacket(PacketView* packet) {
  if (!error_.empty()) return Next::kError;
  const uint8_t* start = buffer_.get() + begin_;
  const uint8_t* end = buffer_.get() + end_;
  const uint8_t* p = start;
  uint64_t length = 0;
  if (!wire::ReadVarint(&p, end, &length)) {
    if (end - start >= static_cast<ptrdiff_t>(wire::kMaxVarintBytes)) {
      error_ = "bad packet length (a varint longer than 10 bytes)";
      return Next::kError;
    }
    return Next::kNeedMore;
  }
  if (length > wire::kMaxPacketBytes) {
    error_ = "packet length " + std::to_string(length) + " exceeds the " + std::to_string(wire::kMaxPacketBytes) +
             "-byte limit";
    return Next::kError;
  }
  if (static_cast<uint64_t>(end - p) < length) return Next::kNeedMore;
  packet->data = p;
  packet->size = static_cast<size_t>(length);
  begin_ = static_cast<size_t>(p + length - buffer_.get());
  return Next::kPacket;
}

}  // namespace memframe::injector
