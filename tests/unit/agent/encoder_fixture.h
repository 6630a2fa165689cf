// What the agent's encoder tests share: a sink whose packets come back
// through libprotobuf, and a reader's decoding of the batches among them.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "agent_ring_records.h"
#include "agent_stream_encoder.h"
#include "capture/clock.h"
#include "capture/event.h"
#include "memframe.pb.h"
#include "memframe/event_codec.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/varint.h"
#include "writer/packet_encoder.h"
#include "writer/socket_sink.h"

namespace memframe::agent {

// The packets of a byte stream framed as SocketSink frames them (a varint
// length before each), with their offsets.
inline std::vector<std::pair<size_t, wire::Packet>> SplitFramedPackets(const std::vector<uint8_t>& bytes) {
  std::vector<std::pair<size_t, wire::Packet>> out;
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  while (p < end) {
    uint64_t length = 0;
    size_t at = static_cast<size_t>(p - bytes.data());
    if (!wire::ReadVarint(&p, end, &length) || length > static_cast<uint64_t>(end - p)) {
      ADD_FAILURE() << "bad framing at " << at;
      break;
    }
    wire::Packet packet;
    EXPECT_TRUE(packet.ParseFromArray(p, static_cast<int>(length))) << at;
    out.emplace_back(at, std::move(packet));
    p += length;
  }
  return out;
}

class EncoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0);
    ASSERT_TRUE(sink_.Adopt(fds_[0]));
    ResetEventEncoder();  // each test is a stream of its own
  }
  void TearDown() override {
    sink_.Close();
    close(fds_[1]);
  }

  // Flushes the sink and splits what arrived into Packets.
  std::vector<wire::Packet> Receive() {
    bool sent = false;
    const std::vector<uint8_t> bytes = test_support::FlushAndReceive(sink_, fds_[1], &sent);
    EXPECT_TRUE(sent);
    std::vector<wire::Packet> packets;
    for (auto& [at, packet] : SplitFramedPackets(bytes)) packets.push_back(std::move(packet));
    return packets;
  }

  int fds_[2];
  SocketSink sink_;
};

// The events of one stream, decoded from every EventBatch packet as a
// reader does: in order, by one decoder (batches may name blocks of earlier
// ones).
inline std::vector<wire::PlainEvent> DecodeBatches(const std::vector<wire::Packet>& packets) {
  wire::EventBatchDecoder decoder(wire::kProtocolVersion);
  std::vector<wire::PlainEvent> out;
  for (const wire::Packet& p : packets) {
    if (!p.has_events()) continue;
    std::string error;
    EXPECT_TRUE(decoder.Decode(p.events(), &out, &error)) << error;
  }
  return out;
}

// What a reader gets of an event's time: its tick rounded down to units of
// 2^kTickShift ticks, its duration to the nearest unit of 2^kDurationShift
// ticks (DurationUnits) and then to the nearest step of its log scale
// (memframe/event_refs.h, CodeDuration).
inline uint64_t SentTicks(const Event& sent) { return sent.ticks >> kTickShift << kTickShift; }
inline uint64_t SentDuration(const Event& sent) {
  const uint32_t units = wire::DurationUnits(sent.duration, kDurationShift);
  return uint64_t{wire::CodeDuration(units, kDurationShift).units} << kDurationShift;
}

inline void ExpectSame(const wire::PlainEvent& decoded, const Event& sent, size_t i) {
  EXPECT_EQ(decoded.kind, sent.kind()) << i;
  EXPECT_EQ(decoded.address, sent.address) << i;
  EXPECT_EQ(decoded.size, sent.size) << i;
  EXPECT_EQ(decoded.stack_id, sent.stack_id) << i;
  EXPECT_EQ(decoded.ticks, SentTicks(sent)) << i;
  EXPECT_EQ(decoded.frame, sent.frame()) << i;
  EXPECT_EQ(decoded.duration, SentDuration(sent)) << i;
}

}  // namespace memframe::agent
