// The Windows side of writer/socket_sink.h: a loopback TCP connection to the
// recorder (MEMFRAME_TCP=HOST:PORT); the packet framing is shared
// (writer/socket_sink.cc). Winsock has no Unix sockets a Linux
// recorder could share under Wine, and TCP works the same on Windows.
#include <winsock2.h>
#include <ws2tcpip.h>

#include <cstdlib>
#include <cstring>

#include "buffer/page_allocator.h"
#include "runtime/diagnostics.h"
#include "writer/socket_sink.h"

namespace memframe::agent {

bool SocketSink::Adopt(int fd) {
  if (!MapBuffer()) return false;
  if (fd >= 0) socket_.handle = static_cast<uintptr_t>(fd);
  return true;
}

bool SocketSink::Connect(const char* address) {
  char host[64];
  const char* colon = strrchr(address, ':');
  if (!colon || static_cast<size_t>(colon - address) >= sizeof(host)) {
    Warn("MEMFRAME_TCP wants HOST:PORT, not '%s'; not recording", address);
    return false;
  }
  memcpy(host, address, static_cast<size_t>(colon - address));
  host[colon - address] = '\0';
  int port = atoi(colon + 1);
  WSADATA wsa;
  if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0) {
    Warn("cannot start Winsock; not recording");
    return false;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<u_short>(port));
  if (port <= 0 || port > 65535 || inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
    Warn("MEMFRAME_TCP wants an IPv4 HOST:PORT, not '%s'; not recording", address);
    return false;
  }
  SOCKET s = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
  if (s == INVALID_SOCKET) return false;
  if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    Warn("cannot connect to the recorder at %s (error %d); not recording", address, WSAGetLastError());
    closesocket(s);
    return false;
  }
  // Events go in large chunks; Nagle would only delay the last one.
  BOOL one = TRUE;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char*>(&one), sizeof(one));
  if (!Adopt(0)) {
    closesocket(s);
    return false;
  }
  socket_.handle = static_cast<uintptr_t>(s);
  return true;
}

void SocketSink::Close() {
  if (socket_.held()) closesocket(static_cast<SOCKET>(socket_.handle));
  socket_.handle = SinkSocket::kNone;
  used_ = 0;
}

// Blocking sends: a slow recorder slows the writer thread, nothing is lost.
bool SocketSink::SendBuffered() {
  size_t sent = 0;
  while (sent < used_) {
    size_t chunk = used_ - sent > (1u << 30) ? (1u << 30) : used_ - sent;
    int n = send(static_cast<SOCKET>(socket_.handle), reinterpret_cast<const char*>(buffer_ + sent), static_cast<int>(chunk), 0);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    Warn("the recorder went away (error %d); the program continues without memframe", WSAGetLastError());
    Close();
    return false;
  }
  return true;
}

}  // namespace memframe::agent
