// Where encoded packets go: a connected Unix stream socket to the recorder.
// Packets are framed into one large mmap'd output buffer and written in big
// chunks. The first write error detaches: the game runs on, unprofiled.
//
// The buffer is large so that one packet of any size fits (a burst's stack
// definitions), but its pages count in the game's resident memory once
// touched: the writer flushes once kFlushAfterBytes are buffered
// (FlushIfFull, after each batch), and a flush of more than kKeptBytes
// gives the pages above kKeptBytes back, so a burst does not stay resident.
//
// The socket is an OwnedFd (runtime/owned_fd.h): checked before every send,
// since the game may close every fd (and reuse the numbers) at any time.
// Sends never block on a number that may have changed hands: each waits for
// room at most kSendWaitMs, then checks the socket again and goes on waiting
// (a slow recorder slows the writer, nothing is lost).
#pragma once

#include <cstddef>
#include <cstdint>

#include "memframe/wire_encoder.h"
#include "os_sink_socket.h"  // agent/platform/<os>/: what holds the connection

namespace memframe::agent {

class SocketSink {
 public:
  // Connects to the Unix socket at `path` (on Windows: the loopback TCP
  // "HOST:PORT", platform/windows/socket_sink_windows.cc); false (with a
  // warning) on failure.
  bool Connect(const char* path);
  // Uses an already connected stream socket (tests use a socketpair); the
  // sink owns it from now on, at another number. -1: no socket, every flush
  // discards.
  bool Adopt(int fd);
  // Closes the socket if it is still the agent's.
  void Close();
  // Closes and gives the output buffer back (a detach: the next Adopt maps
  // a new one). Only once no thread writes packets any more.
  void Release();
  bool connected() const { return socket_.held(); }
  // The socket's number if it is still the agent's, else -1 (Linux only).
  int fd();

  // Room for one packet; the returned writer encodes the Packet's fields.
  // Call EndPacket after encoding. Flushes first if `reserve` bytes are not
  // free.
  wire::ProtoWriter BeginPacket(size_t reserve);
  void EndPacket(const wire::ProtoWriter& packet);

  // Sends everything buffered; false once the recorder is gone.
  bool Flush();
  // Flushes if kFlushAfterBytes or more are buffered; false only if that
  // flush failed.
  bool FlushIfFull() { return used_ < kFlushAfterBytes || Flush(); }
  size_t buffered() const { return used_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  // The buffer itself, for tests of what stays resident.
  const uint8_t* buffer() const { return buffer_; }

  static constexpr size_t kOutputBytes = 16u << 20;
  static constexpr size_t kFlushAfterBytes = 128u << 10;
  static constexpr size_t kKeptBytes = 512u << 10;

 private:
  // Maps the output buffer unless it is there; false if it cannot be.
  bool MapBuffer();
  // Sends the used_ bytes buffered, each platform its own way; false (the
  // connection closed, with a warning) once the recorder is gone.
  bool SendBuffered();
  // After a flush's bytes are sent: the buffer is empty again, and the pages
  // above kKeptBytes that this fill touched are given back.
  void Sent();

  SinkSocket socket_;
  uint8_t* buffer_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t touched_ = 0;  // how far packets were written since the last flush
  uint64_t bytes_sent_ = 0;
};

}  // namespace memframe::agent
