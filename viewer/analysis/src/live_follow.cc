#include "memframe/analysis/live_follow.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "memframe.pb.h"
#include "memframe/analysis/capture_loader.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::analysis {

// ---- LiveConnection ----------------------------------------------------------

std::unique_ptr<LiveConnection> LiveConnection::Connect(const std::string& socket_path, std::string* error) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof(address.sun_path)) {
    *error = "'" + socket_path + "' cannot be a Unix socket path";
    return nullptr;
  }
  memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  std::unique_ptr<LiveConnection> connection(new LiveConnection());
  connection->fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connection->fd_ < 0 ||
      connect(connection->fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    *error = "cannot connect to " + socket_path + ": " + strerror(errno) +
             " (is `memframe run` still running? it prints the live socket's path)";
    return nullptr;
  }
  uint32_t stream = 0;
  std::vector<uint8_t> packet;
  wire::Packet start;
  if (!connection->Next(&stream, &packet) || stream != 0 ||
      !start.ParseFromArray(packet.data(), static_cast<int>(packet.size())) || !start.has_live_start()) {
    *error = socket_path + " is not a memframe live socket" +
             (connection->error_.empty() ? "" : " (" + connection->error_ + ")");
    return nullptr;
  }
  connection->capture_path_ = start.live_start().capture_path();
  connection->records_in_file_ = start.live_start().records();
  if (connection->capture_path_.empty() || connection->capture_path_[0] != '/') {
    *error = socket_path + " names no capture file (a memframe recorder always does)";
    return nullptr;
  }
  return connection;
}

LiveConnection::~LiveConnection() {
  if (fd_ >= 0) close(fd_);
}

void LiveConnection::Shutdown() {
  if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
}

bool LiveConnection::Fill(size_t need) {
  while (buffer_.size() - begin_ < need) {
    if (begin_ > 0 && begin_ >= buffer_.size() / 2) {
      buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<long>(begin_));
      begin_ = 0;
    }
    size_t old = buffer_.size();
    buffer_.resize(old + std::max<size_t>(need, 1u << 16));
    ssize_t n = 0;
    do {
      n = read(fd_, buffer_.data() + old, buffer_.size() - old);
    } while (n < 0 && errno == EINTR);
    buffer_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) {
      error_ = std::string("lost the live socket: ") + strerror(errno);
      return false;
    }
    if (n == 0) {
      if (buffer_.size() != begin_) error_ = "the live stream stopped in the middle of a record";
      return false;
    }
  }
  return true;
}

bool LiveConnection::Next(uint32_t* stream, std::vector<uint8_t>* packet) {
  // varint stream, varint length, then the packet (the capture file's record).
  uint64_t values[2] = {0, 0};
  size_t used = 0;
  for (uint64_t& value : values) {
    // A varint is at most kMaxVarintBytes; ask for one byte at a time so that
    // a short final record does not wait for bytes that never come.
    for (size_t want = used + 1;; ++want) {
      if (!Fill(want)) return false;
      const uint8_t* p = buffer_.data() + begin_ + used;
      const uint8_t* end = buffer_.data() + begin_ + want;
      if (wire::ReadVarint(&p, end, &value)) {
        used = static_cast<size_t>(p - (buffer_.data() + begin_));
        break;
      }
      if (want - used >= wire::kMaxVarintBytes) {
        error_ = "the live stream is damaged (a bad record header)";
        return false;
      }
    }
  }
  if (values[0] > UINT32_MAX || values[1] > wire::kMaxPacketBytes) {
    error_ = "the live stream is damaged (stream " + std::to_string(values[0]) + ", length " +
             std::to_string(values[1]) + ")";
    return false;
  }
  if (!Fill(used + values[1])) {
    if (error_.empty()) error_ = "the live stream stopped in the middle of a record";
    return false;
  }
  *stream = static_cast<uint32_t>(values[0]);
  const uint8_t* data = buffer_.data() + begin_ + used;
  packet->assign(data, data + values[1]);
  begin_ += used + values[1];
  return true;
}

bool LiveConnection::RequestSnapshot(const std::string& name, std::string* error) {
  wire::Packet request;
  request.mutable_snapshot()->set_name(name);
  std::string bytes = request.SerializeAsString();
  uint8_t header[wire::kMaxVarintBytes];
  uint8_t* end = wire::WriteVarint(header, bytes.size());
  std::string message(reinterpret_cast<const char*>(header), static_cast<size_t>(end - header));
  message += bytes;
  size_t sent = 0;
  while (sent < message.size()) {
    ssize_t n = send(fd_, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("cannot send to the recorder: ") + strerror(errno);
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

// ---- LiveFollower ------------------------------------------------------------

std::unique_ptr<LiveFollower> LiveFollower::Start(const std::string& socket_path, std::string* error) {
  auto connection = LiveConnection::Connect(socket_path, error);
  if (!connection) return nullptr;
  std::unique_ptr<LiveFollower> follower(new LiveFollower());
  follower->socket_path_ = socket_path;
  follower->first_tail_record_ = connection->records_in_file();
  follower->connection_ = std::move(connection);
  follower->thread_ = std::thread([f = follower.get()] { f->Read(); });
  return follower;
}

LiveFollower::~LiveFollower() {
  connection_->Shutdown();
  if (thread_.joinable()) thread_.join();
}

void LiveFollower::Read() {
  uint32_t stream = 0;
  std::vector<uint8_t> packet;
  std::string error;
  try {
    while (connection_->Next(&stream, &packet)) {
      std::lock_guard lock(mutex_);
      tail_.emplace_back(stream, std::move(packet));
      packet.clear();
    }
    error = connection_->error();
  } catch (const std::bad_alloc&) {
    error = OutOfMemoryError("the live stream");
  }
  std::lock_guard lock(mutex_);
  ended_ = true;
  error_ = error;
}

LiveFollower::Status LiveFollower::status() const {
  std::lock_guard lock(mutex_);
  return {first_tail_record_ + tail_.size(), ended_, error_};
}

bool LiveFollower::Build(Capture* capture, std::string* error, const std::atomic<bool>* stop) {
  // The tail as it is now; records arriving during the build wait for the
  // next one.
  uint64_t first_tail = 0;
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> tail;
  {
    std::lock_guard lock(mutex_);
    first_tail = first_tail_record_;
    tail.assign(tail_.begin(), tail_.end());
  }
  const uint64_t total = first_tail + tail.size();
  const std::string& path = capture_path();
  auto source = OpenCaptureFile(path, error);
  if (!source) return false;
  CaptureBuilder builder(path);
  std::string damage;
  uint64_t from_file = 0;
  uint32_t stream = 0;
  std::vector<uint8_t> packet;
  auto add = [&](uint32_t s, const std::vector<uint8_t>& p) {
    std::string problem;
    auto status = builder.Add(s, p.data(), p.size(), &problem);
    if (status == CaptureBuilder::Status::kRefused) {
      *error = path + ": " + problem;
      return false;
    }
    if (status == CaptureBuilder::Status::kDamaged && damage.empty()) damage = problem;
    return true;
  };
  // The file ends (cleanly or mid-block) where the recorder last flushed:
  // its records up to there, then the ones the socket sent.
  while (damage.empty() && from_file < total && source->Next(&stream, &packet)) {
    if (stop && stop->load()) {
      *error = "cancelled";
      return false;
    }
    if (!add(stream, packet)) return false;
    ++from_file;
  }
  if (from_file < first_tail) {
    *error = path + " holds " + std::to_string(from_file) + " records, fewer than the " +
             std::to_string(first_tail) + " the recorder said it had written (was it moved or truncated?)";
    return false;
  }
  for (size_t i = from_file - first_tail; damage.empty() && i < tail.size(); ++i) {
    if (!add(tail[i].first, tail[i].second)) return false;
  }
  *capture = builder.Finish(damage);
  // Records the file holds now are read from it next time.
  std::lock_guard lock(mutex_);
  while (first_tail_record_ < from_file && !tail_.empty()) {
    tail_.pop_front();
    ++first_tail_record_;
  }
  return true;
}

}  // namespace memframe::analysis
