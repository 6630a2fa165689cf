// The agent's own encoder (agent/writer/packet_encoder.h), run in a test or
// a tool that writes agent streams by hand (fake agents, transcoded golden
// captures, synthetic benchmark captures): the wire format has one encoder,
// the agent's, and what it wrote comes back through libprotobuf, parsed
// against the schema.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "memframe.pb.h"
#include "memframe/event_codec.h"

namespace memframe::agent {
class SocketSink;
}

namespace memframe::test_support {

// Sends what is buffered in `sink` and returns the bytes that arrive at
// `read_fd`, the other end of the sink's socket; *sent is the flush's
// result. The flush runs beside the reading: more than a socket buffer's
// worth would block it.
std::vector<uint8_t> FlushAndReceive(agent::SocketSink& sink, int read_fd, bool* sent);

// One agent stream. The agent's encoder keeps its state (the blocks earlier
// batches named) per process, as the agent has one stream: one
// AgentStreamEncoder may exist at a time, and it starts the stream afresh.
class AgentStreamEncoder {
 public:
  AgentStreamEncoder();
  ~AgentStreamEncoder();
  AgentStreamEncoder(const AgentStreamEncoder&) = delete;
  AgentStreamEncoder& operator=(const AgentStreamEncoder&) = delete;

  // The EventBatch packets the agent sends for these events of one thread:
  // one, or more where a frame steps by 2^32 or more. Time goes in the
  // agent's units (time stamps in 2^kTickShift ticks, durations in
  // 2^kDurationShift, event_refs.h), and a tick below the previous event's
  // is sent as that tick, as the agent does.
  std::vector<wire::EventBatch> Encode(uint32_t thread_id, const wire::PlainEvent* events, size_t count,
                                       uint64_t dropped = 0);

 private:
  struct Socket;
  std::unique_ptr<Socket> socket_;
};

}  // namespace memframe::test_support
