#include "agent_stream_encoder.h"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "agent_ring_records.h"
#include "capture/event.h"
#include "memframe/varint.h"
#include "writer/packet_encoder.h"
#include "writer/socket_sink.h"

namespace memframe::test_support {
namespace {

std::atomic<bool> g_stream_open{false};

[[noreturn]] void Fail(const char* what) {
  fprintf(stderr, "AgentStreamEncoder: %s\n", what);
  abort();
}

}  // namespace

std::vector<uint8_t> FlushAndReceive(agent::SocketSink& sink, int read_fd, bool* sent) {
  std::atomic<bool> flushed{false};
  std::thread flusher([&] {
    *sent = sink.Flush();
    flushed.store(true);
  });
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  for (;;) {
    const bool done = flushed.load();  // read before the last recv: nothing can arrive after it
    const ssize_t n = recv(read_fd, chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n > 0) {
      bytes.insert(bytes.end(), chunk, chunk + n);
    } else if (done) {
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  flusher.join();
  return bytes;
}

struct AgentStreamEncoder::Socket {
  int fds[2] = {-1, -1};
  agent::SocketSink sink;
};

AgentStreamEncoder::AgentStreamEncoder() : socket_(std::make_unique<Socket>()) {
  if (g_stream_open.exchange(true)) Fail("the agent's encoder has one stream at a time");
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, socket_->fds) != 0 || !socket_->sink.Adopt(socket_->fds[0]))
    Fail("no socket pair");
  agent::ResetEventEncoder();
}

AgentStreamEncoder::~AgentStreamEncoder() {
  socket_->sink.Close();
  close(socket_->fds[1]);
  g_stream_open.store(false);
}

std::vector<wire::EventBatch> AgentStreamEncoder::Encode(uint32_t thread_id, const wire::PlainEvent* events,
                                                         size_t count, uint64_t dropped) {
  std::vector<agent::Event> agent_events(count);
  for (size_t i = 0; i < count; ++i) {
    const wire::PlainEvent& e = events[i];
    agent_events[i] = {e.ticks, e.address, e.size, e.stack_id, e.duration, agent::PackFrameKind(e.frame, e.kind)};
  }
  std::vector<wire::EventBatch> batches;
  if (count == 0) return batches;
  EncodeEvents(socket_->sink, thread_id, agent_events.data(), static_cast<int>(count), dropped);
  bool sent = false;
  const std::vector<uint8_t> bytes = FlushAndReceive(socket_->sink, socket_->fds[1], &sent);
  if (!sent) Fail("the agent's sink did not send");
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  while (p < end) {
    uint64_t length = 0;
    wire::Packet packet;
    if (!wire::ReadVarint(&p, end, &length) || length > static_cast<uint64_t>(end - p) ||
        !packet.ParseFromArray(p, static_cast<int>(length)) || !packet.has_events())
      Fail("the agent sent something other than EventBatch packets");
    batches.push_back(std::move(*packet.mutable_events()));
    p += length;
  }
  return batches;
}

}  // namespace memframe::test_support
