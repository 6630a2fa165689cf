// The recorder: serves the agents' Unix socket and appends every packet they
// send to the capture file, unchanged, as stream 1, 2, ... in accept order.
//
// It knows nothing about launching, so tests drive it with a listening socket
// and fake agents: the caller owns the loop and calls PollOnce until it is
// satisfied (see run_command.cc for the real loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "memframe/capture_file.h"
#include "memframe.pb.h"
#include "packet_stream.h"

namespace memframe::injector {

class KeptWindow;
class LiveServer;

// What a packet's first tag says it holds; read without parsing the packet,
// because parsing every EventBatch with libprotobuf costs more than the whole
// rest of the recorder.
enum class PacketBody { kInvalid, kHello, kOther };
PacketBody PeekPacketBody(PacketView packet);

// Writes one RecorderInfo record on stream 0.
bool AppendRecorderInfo(wire::CaptureWriter* capture, const wire::RecorderInfo& info);

class Recorder {
 public:
  // Neither the listening socket nor the capture is owned (the socket is made
  // non-blocking). Messages for the user ("memframe: ...") go to `log`.
  // `window` (--keep-last, not owned): the records go there instead, and
  // `capture` is null.
  Recorder(int listen_fd, wire::CaptureWriter* capture, std::ostream& log, KeptWindow* window = nullptr);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Waits up to `timeout_ms` for a connection or data, then accepts and reads
  // whatever is ready. Flushes the capture at least once a second while data
  // arrives (the wait is shortened so that a pending flush is never late).
  void PollOnce(int timeout_ms);

  // Publishes every record to `live`'s viewers from now on, serves its
  // socket in PollOnce and writes the snapshots its viewers ask for (not
  // owned; null detaches).
  void AttachLive(LiveServer* live);

  // Closes the connections that are still open and says which processes kept
  // them open; the packets they sent are kept.
  void AbandonOpenConnections();

  // memframe detach: asks every connected agent to stop (one byte on its
  // connection, proto/FORMAT.md "Detach"); each then sends its last events
  // and EndOfStream "detach", and closes.
  void RequestDetach();

  size_t open_connections() const { return connections_.size(); }
  // Connections that said a valid Hello, i.e. streams in the capture.
  uint32_t recorded_streams() const { return recorded_streams_; }
  // Set when appending to the capture failed; the message was printed once.
  bool capture_failed() const { return capture_failed_; }

 private:
  struct Connection;

  void AcceptPending();
  // Reads once and handles every complete packet; false when the connection
  // is finished (closed by its peer, refused, or damaged).
  bool Service(Connection& connection);
  bool Handle(Connection& connection, PacketView packet);
  bool CheckHello(Connection& connection, PacketView packet);
  void Record(uint32_t stream, PacketView packet);
  void FlushIfDue(bool force);
  void ReportCaptureFailure();
  static std::string Who(const Connection& connection);       // "pid N"
  static std::string Describe(const Connection& connection);  // "pid N (stream S)"

  int listen_fd_;
  wire::CaptureWriter* capture_;
  std::ostream& log_;
  std::vector<std::unique_ptr<Connection>> connections_;
  uint32_t next_stream_ = 1;
  uint32_t recorded_streams_ = 0;
  bool capture_failed_ = false;
  bool unflushed_ = false;
  std::chrono::steady_clock::time_point last_flush_;
  LiveServer* live_ = nullptr;
  KeptWindow* window_ = nullptr;
};

}  // namespace memframe::injector
