// What holds writer/socket_sink.h's connection on Windows: a Winsock SOCKET,
// kept as an integer so that the shared header needs no winsock2.h.
#pragma once

#include <cstdint>

namespace memframe::agent {
struct SinkSocket {
  static constexpr uintptr_t kNone = ~uintptr_t{0};  // INVALID_SOCKET
  uintptr_t handle = kNone;
  bool held() const { return handle != kNone; }
};
}  // namespace memframe::agent
