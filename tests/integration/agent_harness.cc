#include "agent_harness.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unordered_map>

#include "memframe/event_codec.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::testing {

namespace {

struct Connection {
  int fd;
  std::vector<uint8_t> bytes;
  bool open = true;
  std::chrono::steady_clock::time_point read_from{};  // a stalled recorder reads nothing before this
};

void Decode(AgentStream& stream, const std::vector<uint8_t>& bytes) {
  std::unique_ptr<wire::EventBatchDecoder> decoder;  // from the stream's Hello
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  while (p < end) {
    uint64_t length = 0;
    const uint8_t* q = p;
    if (!wire::ReadVarint(&q, end, &length) || length > static_cast<uint64_t>(end - q)) break;
    wire::Packet packet;
    if (!packet.ParseFromArray(q, static_cast<int>(length))) break;
    p = q + length;
    if (packet.has_end()) stream.ended = true;
    for (const wire::MarkerDef& m : packet.markers().markers()) stream.markers[m.id()] = m.name();
    if (packet.has_thread() && !packet.thread().name().empty())
      stream.thread_names[packet.thread().thread_id()] = packet.thread().name();
    stream.dropped_in_batches += packet.events().dropped();
    if (packet.has_hello()) decoder = std::make_unique<wire::EventBatchDecoder>(packet.hello().protocol_version());
    if (packet.has_events() && decoder) {
      const wire::EventBatch& b = packet.events();
      std::vector<wire::PlainEvent> plain;
      std::string error;
      if (!decoder->Decode(b, &plain, &error)) stream.decode_error = error;
      for (const wire::PlainEvent& e : plain)
        stream.events.push_back({b.thread_id(), e.kind, e.address, e.size, e.stack_id, e.ticks, e.frame});
    }
    stream.packets.push_back(std::move(packet));
  }
}

}  // namespace

AgentRun RunWithAgent(const std::vector<std::string>& argv, const AgentRunOptions& options) {
  AgentRun run;
  char dir_template[] = "/tmp/memframe-test-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) return run;
  std::string socket_path = std::string(dir) + "/agent.sock";
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  listen(listener, 16);

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) return run;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (options.preload) setenv("LD_PRELOAD", MEMFRAME_AGENT_PATH, 1);
    if (options.preload && options.connect) setenv("MEMFRAME_SOCKET", socket_path.c_str(), 1);
    for (const auto& [name, value] : options.environment) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);  // poll decides; reads never block the recorder
  fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  bool err_open = true;

  std::vector<Connection> connections;
  bool child_running = true, out_open = true;
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  auto child_exit_time = std::chrono::steady_clock::time_point::max();
  for (;;) {
    bool any_open = std::any_of(connections.begin(), connections.end(), [](const Connection& c) { return c.open; });
    auto now = std::chrono::steady_clock::now();
    if (!child_running && !out_open && !err_open && (!any_open || now > child_exit_time + std::chrono::seconds(3))) break;
    if (now > deadline) {
      kill(pid, SIGKILL);
      if (child_running) waitpid(pid, &status, 0);
      child_running = false;
      break;
    }
    std::vector<pollfd> fds;
    fds.push_back({listener, POLLIN, 0});
    if (out_open) fds.push_back({out_pipe[0], POLLIN, 0});
    if (err_open) fds.push_back({err_pipe[0], POLLIN, 0});
    for (Connection& c : connections)
      if (c.open && now >= c.read_from) fds.push_back({c.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), 20);
    int client;
    while ((client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) >= 0)
      connections.push_back({client, {}, true, now + std::chrono::milliseconds(options.stall_ms)});
    if (out_open) {
      char buf[4096];
      ssize_t n = read(out_pipe[0], buf, sizeof(buf));
      if (n > 0) run.standard_output.append(buf, static_cast<size_t>(n));
      else if (n == 0) out_open = false;
    }
    if (err_open) {
      char buf[4096];
      ssize_t n = read(err_pipe[0], buf, sizeof(buf));
      if (n > 0) run.standard_error.append(buf, static_cast<size_t>(n));
      else if (n == 0) err_open = false;
    }
    for (Connection& c : connections) {
      if (!c.open || std::chrono::steady_clock::now() < c.read_from) continue;
      uint8_t buf[1 << 16];
      ssize_t n = recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        c.bytes.insert(c.bytes.end(), buf, buf + n);
        if (options.close_after_hello) {
          close(c.fd);
          c.open = false;
        }
      } else if (n == 0) {
        close(c.fd);
        c.open = false;
      }
    }
    if (child_running && waitpid(pid, &status, WNOHANG) == pid) {
      child_running = false;
      child_exit_time = std::chrono::steady_clock::now();
    }
  }
  for (Connection& c : connections)
    if (c.open) close(c.fd);
  close(listener);
  close(out_pipe[0]);
  close(err_pipe[0]);
  std::filesystem::remove_all(dir);

  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  for (const Connection& c : connections) {
    run.streams.emplace_back();
    Decode(run.streams.back(), c.bytes);
  }
  return run;
}

uint64_t CountAllocs(const AgentStream& stream, uint64_t size) {
  uint64_t n = 0;
  for (const DecodedEvent& e : stream.events)
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC && e.size == size) ++n;
  return n;
}

uint64_t CountFrameEnds(const AgentStream& stream, const std::string& entry_point) {
  uint64_t n = 0;
  for (const DecodedEvent& e : stream.events) {
    if (wire::KindOf(e.kind) != wire::EVENT_FRAME_END) continue;
    auto it = stream.markers.find(static_cast<uint32_t>(e.address));
    if (it != stream.markers.end() && it->second == entry_point) ++n;
  }
  return n;
}

uint64_t LiveBlocksOfSize(const AgentStream& stream, uint64_t size) {
  std::vector<DecodedEvent> events = stream.events;
  std::stable_sort(events.begin(), events.end(),
                   [](const DecodedEvent& a, const DecodedEvent& b) { return a.ticks < b.ticks; });
  struct Address {
    int64_t allocs_minus_frees = 0;
    uint64_t last_size = 0;
  };
  std::unordered_map<uint64_t, Address> addresses;
  for (const DecodedEvent& e : events) {
    Address& a = addresses[e.address];
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC) a.allocs_minus_frees++, a.last_size = e.size;
    if (wire::KindOf(e.kind) == wire::EVENT_FREE) a.allocs_minus_frees--;
  }
  return static_cast<uint64_t>(std::count_if(addresses.begin(), addresses.end(), [&](auto& kv) {
    return kv.second.allocs_minus_frees > 0 && kv.second.last_size == size;
  }));
}

}  // namespace memframe::testing
