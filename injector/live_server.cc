#include "live_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "memframe/varint.h"
#include "packet_stream.h"

namespace memframe::injector {

namespace {

uint64_t ClockNs(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

void AppendRecord(std::string* out, uint32_t stream, const void* packet, size_t size) {
  uint8_t header[2 * wire::kMaxVarintBytes];
  uint8_t* p = wire::WriteVarint(header, stream);
  p = wire::WriteVarint(p, size);
  out->append(reinterpret_cast<const char*>(header), static_cast<size_t>(p - header));
  out->append(static_cast<const char*>(packet), size);
}

}  // namespace

struct LiveServer::Viewer {
  int fd = -1;
  uint32_t id = 0;
  std::string out;      // framed records not yet sent
  size_t out_sent = 0;  // bytes of `out` already sent
  PacketStream input{LiveServer::kMaxRequestBytes};
  bool dead = false;

  size_t queued() const { return out.size() - out_sent; }
};

std::unique_ptr<LiveServer> LiveServer::Create(const std::string& socket_path, std::string capture_path,
                                               std::ostream& log, std::string* error, size_t max_queued_bytes) {
  std::unique_ptr<LiveServer> server(new LiveServer());
  if (max_queued_bytes) server->max_queued_ = max_queued_bytes;
  server->capture_path_ = std::move(capture_path);
  server->log_ = &log;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) {
    *error = "live socket path " + socket_path + " is too long for a Unix socket";
    return nullptr;
  }
  memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  server->listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (server->listen_fd_ < 0 ||
      bind(server->listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    *error = "cannot listen on " + socket_path + ": " + strerror(errno);
    return nullptr;
  }
  server->socket_path_ = socket_path;  // bound: the destructor removes it
  if (listen(server->listen_fd_, 16) != 0) {
    *error = "cannot listen on " + socket_path + ": " + strerror(errno);
    return nullptr;
  }
  return server;
}

LiveServer::~LiveServer() {
  for (auto& viewer : viewers_) close(viewer->fd);
  if (listen_fd_ >= 0) close(listen_fd_);
  if (!socket_path_.empty()) unlink(socket_path_.c_str());
}

void LiveServer::AddPollFds(std::vector<pollfd>* fds) const {
  fds->push_back({listen_fd_, POLLIN, 0});
  for (const auto& viewer : viewers_)
    fds->push_back({viewer->fd, static_cast<short>(POLLIN | (viewer->queued() ? POLLOUT : 0)), 0});
}

void LiveServer::Service(const pollfd* fds, size_t count) {
  // fds[0] is the listening socket, fds[1 + i] viewer i as AddPollFds saw it.
  size_t polled = std::min(count > 0 ? count - 1 : 0, viewers_.size());
  for (size_t i = 0; i < polled; ++i) {
    Viewer& viewer = *viewers_[i];
    if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (!Read(viewer)) viewer.dead = true;
    }
  }
  if (count > 0 && (fds[0].revents & POLLIN)) Accept();
  for (auto& viewer : viewers_) {
    if (!viewer->dead && viewer->queued() && !Write(*viewer)) viewer->dead = true;
  }
  for (size_t i = viewers_.size(); i-- > 0;) {
    if (viewers_[i]->dead) Drop(i);
  }
}

void LiveServer::Accept() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN, or EMFILE and the like: retried on the next poll
    }
    // Only our own user can reach the 0700 directory; refuse anyone else
    // anyway, in case the socket was passed on.
    ucred peer{};
    socklen_t size = sizeof(peer);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != getuid()) {
      close(fd);
      continue;
    }
    if (viewers_.size() >= kMaxViewers) {
      *log_ << "memframe: refused a live viewer (pid " << peer.pid << "): " << kMaxViewers
            << " follow this run already\n";
      close(fd);
      continue;
    }
    auto viewer = std::make_unique<Viewer>();
    viewer->fd = fd;
    viewer->id = next_viewer_++;
    wire::Packet start;
    start.mutable_live_start()->set_capture_path(capture_path_);
    start.mutable_live_start()->set_records(host_.sync_capture ? host_.sync_capture() : 0);
    start.mutable_live_start()->set_recorder_version(MEMFRAME_VERSION);
    std::string bytes = start.SerializeAsString();
    AppendRecord(&viewer->out, 0, bytes.data(), bytes.size());
    *log_ << "memframe: live viewer " << viewer->id << " connected (pid " << peer.pid << ")\n";
    viewers_.push_back(std::move(viewer));
  }
}

bool LiveServer::Read(Viewer& viewer) {
  ssize_t n = viewer.input.ReadFrom(viewer.fd);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
  if (n <= 0) {
    *log_ << "memframe: live viewer " << viewer.id << " disconnected\n";
    return false;
  }
  PacketView packet;
  for (;;) {
    PacketStream::Next next = viewer.input.NextPacket(&packet);
    if (next == PacketStream::Next::kNeedMore) break;
    if (next == PacketStream::Next::kError || packet.size > kMaxRequestBytes ||
        !HandleRequest(viewer, packet.data, packet.size)) {
      *log_ << "memframe: live viewer " << viewer.id
            << " sent something that is not a memframe request; disconnected it\n";
      return false;
    }
  }
  if (viewer.input.pending_bytes() > kMaxRequestBytes) {
    *log_ << "memframe: live viewer " << viewer.id << " sent an oversized request; disconnected it\n";
    return false;
  }
  return true;
}

bool LiveServer::HandleRequest(Viewer& viewer, const uint8_t* data, size_t size) {
  wire::Packet request;
  if (!request.ParseFromArray(data, static_cast<int>(size)) || !request.has_snapshot()) return false;
  std::string name = request.snapshot().name();
  if (name.size() > kMaxSnapshotName) return false;
  // A name is shown in tables and typed on command lines: no control bytes.
  if (std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    return false;
  ++snapshots_;
  if (name.empty()) name = "snapshot " + std::to_string(snapshots_);
  wire::Snapshot snapshot;
  snapshot.set_name(name);
  snapshot.set_monotonic_ns(ClockNs(CLOCK_MONOTONIC));
  snapshot.set_unix_ns(ClockNs(CLOCK_REALTIME));
  *log_ << "memframe: live viewer " << viewer.id << " marked '" << name << "'\n";
  if (host_.record_snapshot) host_.record_snapshot(snapshot);
  return true;
}

bool LiveServer::Write(Viewer& viewer) {
  while (viewer.queued()) {
    ssize_t n = send(viewer.fd, viewer.out.data() + viewer.out_sent, viewer.queued(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      *log_ << "memframe: live viewer " << viewer.id << " disconnected\n";
      return false;
    }
    viewer.out_sent += static_cast<size_t>(n);
  }
  // Keep the buffer from growing forever: drop what was sent once it is
  // most of the buffer.
  if (viewer.out_sent == viewer.out.size()) {
    // A viewer that caught up gives back what its backlog took.
    if (viewer.out.capacity() > (1u << 20)) std::string().swap(viewer.out);
    viewer.out.clear();
    viewer.out_sent = 0;
  } else if (viewer.out_sent > (1u << 20) && viewer.out_sent > viewer.out.size() / 2) {
    viewer.out.erase(0, viewer.out_sent);
    viewer.out_sent = 0;
  }
  return true;
}

void LiveServer::Publish(uint32_t stream, const void* packet, size_t size) {
  for (auto& viewer : viewers_) {
    if (viewer->dead) continue;
    if (viewer->queued() + size > max_queued_) {
      GiveUp(*viewer, "more than " + std::to_string(max_queued_ >> 10) + " KiB behind");
      continue;
    }
    AppendRecord(&viewer->out, stream, packet, size);
  }
  BoundTotalQueued();
}

size_t LiveServer::queued_bytes() const {
  size_t total = 0;
  for (const auto& viewer : viewers_)
    if (!viewer->dead) total += viewer->queued();
  return total;
}

void LiveServer::BoundTotalQueued() {
  const size_t max_total = 2 * max_queued_;
  for (size_t total = queued_bytes(); total > max_total;) {
    Viewer* furthest = nullptr;
    for (auto& viewer : viewers_)
      if (!viewer->dead && (!furthest || viewer->queued() > furthest->queued())) furthest = viewer.get();
    total -= furthest->queued();
    GiveUp(*furthest, "the viewers together are more than " + std::to_string(max_total >> 10) +
                          " KiB behind, this one the most");
  }
}

void LiveServer::GiveUp(Viewer& viewer, const std::string& why) {
  *log_ << "memframe: live viewer " << viewer.id << " cannot keep up (" << why
        << "); disconnected it, the capture is unaffected\n";
  viewer.dead = true;  // dropped at the next Service; its memory now
  std::string().swap(viewer.out);
  viewer.out_sent = 0;
}

void LiveServer::Drop(size_t index) {
  close(viewers_[index]->fd);
  viewers_.erase(viewers_.begin() + static_cast<long>(index));
}

void LiveServer::Finish(int limit_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  for (;;) {
    for (size_t i = viewers_.size(); i-- > 0;) {
      Viewer& viewer = *viewers_[i];
      if (viewer.dead || !Write(viewer) || !viewer.queued()) Drop(i);
    }
    if (viewers_.empty()) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    std::vector<pollfd> fds;
    for (const auto& viewer : viewers_) fds.push_back({viewer->fd, POLLOUT, 0});
    poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
  for (auto& viewer : viewers_) {
    *log_ << "memframe: live viewer " << viewer->id << " did not take the end of the run in time; disconnected it\n";
    close(viewer->fd);
  }
  viewers_.clear();
}

}  // namespace memframe::injector
