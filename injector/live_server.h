// The live socket: viewers following a run (`memframe-viewer --follow`).
//
// A viewer connects to a Unix socket beside the agents' one, in the run's
// private 0700 directory (only the same user can reach it). It receives a
// LiveStart record (the capture file's path and how many records it holds so
// far, flushed), then every later record of the capture as the recorder
// writes it, framed as in the capture file (varint stream, varint length,
// Packet). It may send Snapshot requests (varint length, Packet), which the
// recorder stamps and writes on stream 0.
//
// The game must never wait for a viewer: each viewer has a bounded queue
// written without blocking; a viewer that falls further behind than that is
// disconnected with a message, and the capture is unaffected. The queues
// together are bounded too (twice one queue's bound, and at most
// kMaxViewers viewers): when they pass it, the viewer furthest behind is
// disconnected, so that stalled viewers cannot make the recorder, which
// shares the machine with the game, grow without limit. The backlog is
// not replayed from memory: the viewer reads it from the capture file, so
// the recorder holds no second copy of the run and does no catch-up work.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "memframe.pb.h"
#include "memframe/format.h"

namespace memframe::injector {

class LiveServer {
 public:
  struct Host {
    // Flushes the capture so that its file holds every record so far;
    // returns how many that is.
    std::function<uint64_t()> sync_capture;
    // Writes a stamped snapshot on stream 0 (the recorder publishes it back
    // to every viewer like any other record).
    std::function<void(const wire::Snapshot&)> record_snapshot;
  };

  // Listens on `socket_path` (its directory must be private already).
  // `max_queued_bytes` 0 means kMaxQueuedBytes.
  static std::unique_ptr<LiveServer> Create(const std::string& socket_path, std::string capture_path,
                                            std::ostream& log, std::string* error, size_t max_queued_bytes = 0);
  ~LiveServer();  // closes every viewer and removes the socket
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  void SetHost(Host host) { host_ = std::move(host); }
  const std::string& socket_path() const { return socket_path_; }
  size_t viewers() const { return viewers_.size(); }
  // Bytes waiting in every viewer's queue.
  size_t queued_bytes() const;

  // Poll integration: AddPollFds appends this server's descriptors (the
  // listening socket and each viewer); Service handles their revents, given
  // the same span back, and then writes what it can of each queue.
  void AddPollFds(std::vector<pollfd>* fds) const;
  void Service(const pollfd* fds, size_t count);

  // Queues one capture record for every viewer (never blocks).
  void Publish(uint32_t stream, const void* packet, size_t size);

  // At the end of the run: tries for up to `limit_ms` to send what is queued,
  // then closes every viewer.
  void Finish(int limit_ms);

  // A viewer more than this far behind is disconnected, and the one
  // furthest behind when all are together more than twice this.
  static constexpr size_t kMaxQueuedBytes = 64u << 20;
  // More are refused as they connect.
  static constexpr size_t kMaxViewers = 16;
  // Requests are small; anything bigger is not a memframe viewer.
  static constexpr size_t kMaxRequestBytes = 4096;
  static constexpr size_t kMaxSnapshotName = wire::kMaxSnapshotNameBytes;

 private:
  struct Viewer;
  LiveServer() = default;
  void Accept();
  bool Read(Viewer& viewer);        // false: drop it
  bool Write(Viewer& viewer);       // false: drop it
  bool HandleRequest(Viewer& viewer, const uint8_t* data, size_t size);
  void Drop(size_t index);
  // Disconnects viewers, furthest behind first, until the queues together
  // are within twice one queue's bound.
  void BoundTotalQueued();
  void GiveUp(Viewer& viewer, const std::string& why);  // says why; dropped at the next Service

  std::string socket_path_;
  std::string capture_path_;
  std::ostream* log_ = nullptr;
  int listen_fd_ = -1;
  size_t max_queued_ = kMaxQueuedBytes;
  Host host_;
  std::vector<std::unique_ptr<Viewer>> viewers_;
  uint32_t next_viewer_ = 1;
  uint64_t snapshots_ = 0;
};

}  // namespace memframe::injector
