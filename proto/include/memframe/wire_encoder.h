// A minimal protobuf encoder into a caller-owned buffer, for the agent.
//
// Why not libprotobuf: the agent lives inside someone else's process. It must
// not allocate per message, must not clash with a protobuf the game ships,
// and Debian's static libprotobuf is not position independent. Field numbers
// come from the generated memframe.pb.h (kFooFieldNumber constants), so this
// encoder and memframe.proto cannot drift; tests decode its output with
// libprotobuf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memframe/varint.h"

namespace memframe::wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Nested messages reserve this many bytes for their length and patch it in
// EndNested as a padded varint: one pass, no size precomputation.
constexpr size_t kNestedLengthBytes = 5;

class ProtoWriter {
 public:
  ProtoWriter(uint8_t* buffer, size_t capacity) : begin_(buffer), pos_(buffer), end_(buffer + capacity) {}

  void Varint(uint32_t field, uint64_t value) {
    Tag(field, kVarint);
    RawVarint(value);
  }
  void Bool(uint32_t field, bool value) { Varint(field, value ? 1 : 0); }
  void Bytes(uint32_t field, const void* data, size_t size) {
    Tag(field, kLengthDelimited);
    RawVarint(size);
    Raw(data, size);
  }
  void String(uint32_t field, const char* s) { Bytes(field, s, strlen(s)); }

  // Opens a nested message or a packed repeated field; returns its handle.
  size_t BeginNested(uint32_t field) {
    Tag(field, kLengthDelimited);
    size_t handle = size();
    if (Room(kNestedLengthBytes)) pos_ += kNestedLengthBytes;
    return handle;
  }
  void EndNested(size_t handle) {
    if (overflow_) return;
    uint8_t* length_at = begin_ + handle;
    size_t length = static_cast<size_t>(pos_ - length_at) - kNestedLengthBytes;
    WritePaddedVarint(length_at, length, kNestedLengthBytes);
  }

  void RawVarint(uint64_t value) {
    if (Room(kMaxVarintBytes)) pos_ = WriteVarint(pos_, value);
  }
  // Direct access for an encoder that stores its own bytes (EventBatch's
  // columns): room for n bytes at the returned pointer, or nullptr (and the
  // writer overflows) without it. Commit(end) then takes the bytes up to end,
  // which must lie within those n.
  uint8_t* Reserve(size_t n) { return Room(n) ? pos_ : nullptr; }
  void Commit(uint8_t* end) { pos_ = end; }

  size_t size() const { return static_cast<size_t>(pos_ - begin_); }
  bool overflow() const { return overflow_; }

 private:
  void Raw(const void* data, size_t size) {
    if (Room(size)) {
      memcpy(pos_, data, size);
      pos_ += size;
    }
  }
  void Tag(uint32_t field, WireType type) { RawVarint((static_cast<uint64_t>(field) << 3) | type); }
  bool Room(size_t n) {
    if (overflow_ || static_cast<size_t>(end_ - pos_) < n) {
      overflow_ = true;
      return false;
    }
    return true;
  }

  uint8_t* begin_;
  uint8_t* pos_;
  uint8_t* end_;
  bool overflow_ = false;
};

}  // namespace memframe::wire
