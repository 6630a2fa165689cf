// The packet framing both platforms share; connecting and sending are each
// platform's (agent/platform/<os>/socket_sink_<os>.cc).
#include "writer/socket_sink.h"

#include "buffer/page_allocator.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

bool SocketSink::MapBuffer() {
  if (!buffer_) {
    buffer_ = static_cast<uint8_t*>(MapPages(kOutputBytes));
    if (!buffer_) return false;
    capacity_ = kOutputBytes;
  }
  return true;
}

bool SocketSink::Flush() {
  if (!socket_.held()) {
    used_ = 0;
    return false;
  }
  if (!SendBuffered()) return false;
  Sent();
  return true;
}

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

}  // namespace memframe::agent
