// Base-128 varints as protobuf writes them. Header-only and allocation-free:
// the agent (which does not link libprotobuf) and the readers both use it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::wire {

constexpr size_t kMaxVarintBytes = 10;

// Writes v at p; returns the byte after it. p must have kMaxVarintBytes room.
inline uint8_t* WriteVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Writes v in exactly `width` bytes (a padded varint, which protobuf parsers
// accept): lets an encoder reserve room for a length before it knows it.
inline uint8_t* WritePaddedVarint(uint8_t* p, uint64_t v, size_t width) {
  for (size_t i = 0; i + 1 < width; ++i) {
    *p++ = static_cast<uint8_t>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v & 0x7f);
  return p;
}

// Reads a varint from [*p, end). Returns false on truncation or a varint
// longer than 10 bytes, leaving *p unchanged.
inline bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  const uint8_t* q = *p;
  for (int shift = 0; shift < 70; shift += 7) {
    if (q == end) return false;
    uint8_t b = *q++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *p = q;
      *out = v;
      return true;
    }
  }
  return false;
}

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

}  // namespace memframe::wire
