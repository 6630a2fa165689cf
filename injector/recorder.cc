#include "recorder.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kept_window.h"
#include "live_server.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::injector {

namespace {

constexpr auto kFlushInterval = std::chrono::seconds(1);
// Packet.body's members an agent writes are fields 1..9, 12, 13 and 14
// (memframe.proto; 10 and 11 are the recorder's own); a first tag outside
// them is not something an agent of our protocol version writes.
constexpr uint64_t kFirstBodyField = wire::Packet::kHelloFieldNumber;
constexpr uint64_t kLastBodyField = wire::Packet::kRecorderFieldNumber;
constexpr bool IsAgentBody(uint64_t field) {
  return (field >= kFirstBodyField && field <= kLastBodyField) || field == wire::Packet::kAllocatorsFieldNumber ||
         field == wire::Packet::kSymbolsFieldNumber || field == wire::Packet::kGpuFieldNumber;
}
constexpr uint64_t kLengthDelimited = 2;

uint32_t PeerPid(int fd) {
#ifdef SO_PEERCRED
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0) return static_cast<uint32_t>(credentials.pid);
#else
  (void)fd;
#endif
  return 0;
}

}  // namespace

PacketBody PeekPacketBody(PacketView packet) {
  const uint8_t* p = packet.data;
  const uint8_t* end = packet.data + packet.size;
  uint64_t tag = 0, length = 0;
  if (!wire::ReadVarint(&p, end, &tag) || (tag & 7) != kLengthDelimited) return PacketBody::kInvalid;
  uint64_t field = tag >> 3;
  if (!IsAgentBody(field)) return PacketBody::kInvalid;
  if (!wire::ReadVarint(&p, end, &length) || length > static_cast<uint64_t>(end - p)) return PacketBody::kInvalid;
  return field == wire::Packet::kHelloFieldNumber ? PacketBody::kHello : PacketBody::kOther;
}

bool AppendRecorderInfo(wire::CaptureWriter* capture, const wire::RecorderInfo& info) {
  wire::Packet packet;
  *packet.mutable_recorder() = info;
  std::string bytes = packet.SerializeAsString();
  return capture->Append(0, bytes.data(), bytes.size());
}

struct Recorder::Connection {
  int fd = -1;
  uint32_t stream = 0;
  uint32_t pid = 0;          // from SO_PEERCRED; 0 if unknown
  bool said_hello = false;
  uint64_t packets = 0;      // recorded on this stream
  PacketStream input;
};

Recorder::Recorder(int listen_fd, wire::CaptureWriter* capture, std::ostream& log, KeptWindow* window)
    : listen_fd_(listen_fd),
      capture_(capture),
      log_(log),
      last_flush_(std::chrono::steady_clock::now()),
      window_(window) {
  // AcceptPending takes the whole backlog and stops at EAGAIN.
  fcntl(listen_fd_, F_SETFL, fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
}

Recorder::~Recorder() {
  // The capture is the caller's: it may be closed already, so no flush here.
  for (auto& connection : connections_) close(connection->fd);
}

std::string Recorder::Who(const Connection& connection) {
  return connection.pid ? "pid " + std::to_string(connection.pid) : "a process";
}

std::string Recorder::Describe(const Connection& connection) {
  return Who(connection) + " (stream " + std::to_string(connection.stream) + ")";
}

void Recorder::PollOnce(int timeout_ms) {
  if (unflushed_) {
    auto until_flush = std::chrono::duration_cast<std::chrono::milliseconds>(
        last_flush_ + kFlushInterval - std::chrono::steady_clock::now());
    int flush_ms = static_cast<int>(std::max<int64_t>(until_flush.count(), 0));
    if (timeout_ms < 0 || flush_ms < timeout_ms) timeout_ms = flush_ms;
  }
  std::vector<pollfd> fds;
  fds.reserve(connections_.size() + 1);
  fds.push_back({listen_fd_, POLLIN, 0});
  for (auto& connection : connections_) fds.push_back({connection->fd, POLLIN, 0});
  const size_t live_first = fds.size();
  if (live_) live_->AddPollFds(&fds);

  int ready = poll(fds.data(), fds.size(), timeout_ms);
  if (ready > 0) {
    // Connections first, in the order of fds (new ones are polled next time).
    size_t kept = 0;
    for (size_t i = 0; i < connections_.size(); ++i) {
      bool open = true;
      if (fds[i + 1].revents) open = Service(*connections_[i]);
      if (open) {
        connections_[kept++] = std::move(connections_[i]);
      } else {
        close(connections_[i]->fd);
      }
    }
    connections_.resize(kept);
    if (fds[0].revents & POLLIN) AcceptPending();
  }
  // Also when poll timed out: records arrived meanwhile wait in the queues.
  if (live_) live_->Service(fds.data() + live_first, fds.size() - live_first);
  FlushIfDue(false);
}

void Recorder::AcceptPending() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // EAGAIN: backlog drained. Anything else (EMFILE, ...) is retried on
      // the next poll; the agent waits in the backlog meanwhile.
      if (errno != EAGAIN && errno != EWOULDBLOCK) log_ << "memframe: accept failed: " << strerror(errno) << '\n';
      return;
    }
    auto connection = std::make_unique<Connection>();
    connection->fd = fd;
    connection->stream = next_stream_++;
    connection->pid = PeerPid(fd);
    connections_.push_back(std::move(connection));
  }
}

bool Recorder::Service(Connection& connection) {
  ssize_t n = connection.input.ReadFrom(connection.fd);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
  if (n > 0) {
    PacketView packet;
    for (;;) {
      PacketStream::Next next = connection.input.NextPacket(&packet);
      if (next == PacketStream::Next::kNeedMore) return true;
      if (next == PacketStream::Next::kError) {
        log_ << "memframe: " << Describe(connection) << " sent a damaged stream (" << connection.input.error()
             << "); closed it, keeping the " << connection.packets << " packets before the damage\n";
        return false;
      }
      if (!Handle(connection, packet)) return false;
    }
  }
  // End of stream (n == 0) or a read error such as ECONNRESET.
  if (!connection.said_hello) {
    log_ << "memframe: " << Who(connection) << " did not say hello; not recording it\n";
  } else if (n < 0) {
    log_ << "memframe: lost the connection to " << Describe(connection) << " (" << strerror(errno)
         << "); keeping the " << connection.packets << " packets it sent\n";
  } else if (connection.input.pending_bytes() > 0) {
    log_ << "memframe: " << Describe(connection) << " stopped in the middle of a packet; keeping the "
         << connection.packets << " packets before it\n";
  }
  return false;
}

bool Recorder::Handle(Connection& connection, PacketView packet) {
  PacketBody body = PeekPacketBody(packet);
  if (!connection.said_hello) {
    if (body != PacketBody::kHello) {
      log_ << "memframe: " << Who(connection) << " did not say hello; not recording it\n";
      return false;
    }
    if (!CheckHello(connection, packet)) return false;
    connection.said_hello = true;
    ++recorded_streams_;
  } else if (body == PacketBody::kInvalid) {
    log_ << "memframe: " << Describe(connection) << " sent a packet memframe cannot read; closed it, keeping the "
         << connection.packets << " packets before it\n";
    return false;
  }
  Record(connection.stream, packet);
  ++connection.packets;
  return true;
}

bool Recorder::CheckHello(Connection& connection, PacketView packet) {
  wire::Packet parsed;
  if (!parsed.ParseFromArray(packet.data, static_cast<int>(packet.size)) || !parsed.has_hello()) {
    log_ << "memframe: " << Who(connection) << " did not say hello; not recording it\n";
    return false;
  }
  const wire::Hello& hello = parsed.hello();
  if (connection.pid == 0) connection.pid = hello.pid();
  if (hello.protocol_version() != wire::kProtocolVersion) {
    log_ << "memframe: pid " << connection.pid << " speaks protocol v"
         << hello.protocol_version() << ", this memframe speaks v" << wire::kProtocolVersion
         << "; not recording it\n";
    return false;
  }
  return true;
}

void Recorder::Record(uint32_t stream, PacketView packet) {
  if (capture_failed_) return;  // keep draining so that agents never block on a full socket
  if (window_ ? !window_->Add(stream, packet.data, packet.size) : !capture_->Append(stream, packet.data, packet.size)) {
    ReportCaptureFailure();
    return;
  }
  unflushed_ = true;
  if (live_) live_->Publish(stream, packet.data, packet.size);
}

void Recorder::AttachLive(LiveServer* live) {
  live_ = live;
  if (!live_) return;
  LiveServer::Host host;
  host.sync_capture = [this] {
    FlushIfDue(true);
    // A window has no one file that holds the run so far: a viewer
    // following it gets the records from now on.
    return capture_ ? capture_->records() : 0;
  };
  host.record_snapshot = [this](const wire::Snapshot& snapshot) {
    wire::Packet packet;
    *packet.mutable_snapshot() = snapshot;
    std::string bytes = packet.SerializeAsString();
    Record(0, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  };
  live_->SetHost(std::move(host));
}

void Recorder::ReportCaptureFailure() {
  capture_failed_ = true;
  if (window_) return;  // the window said why
  // CaptureWriter leaves error() empty when fflush fails; errno has the cause.
  std::string why = capture_->error().empty() ? strerror(errno) : capture_->error();
  capture_failed_ = true;
  log_ << "memframe: cannot write the capture (" << why << "); the recording stops here\n";
}

void Recorder::FlushIfDue(bool force) {
  if (!unflushed_ || capture_failed_) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_flush_ < kFlushInterval) return;
  if (window_ ? !window_->Flush() : !capture_->Flush()) ReportCaptureFailure();
  unflushed_ = false;
  last_flush_ = now;
}

void Recorder::RequestDetach() {
  static const char kDetach = 'D';
  for (auto& connection : connections_) {
    // A full socket buffer cannot be: the agent never reads anything else.
    if (send(connection->fd, &kDetach, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
      log_ << "memframe: cannot ask " << Who(*connection) << " to detach: " << strerror(errno) << '\n';
  }
}

void Recorder::AbandonOpenConnections() {
  for (auto& connection : connections_) {
    log_ << "memframe: " << Describe(*connection)
         << " still has its connection open (a descendant that outlived the program?); stopped recording it\n";
    close(connection->fd);
  }
  connections_.clear();
  FlushIfDue(true);
}

}  // namespace memframe::injector
