#include "packet_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fake_agent_client.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::injector {
namespace {

std::vector<std::string> Drain(PacketStream& stream, PacketStream::Next* last = nullptr) {
  std::vector<std::string> packets;
  PacketView view;
  PacketStream::Next next;
  while ((next = stream.NextPacket(&view)) == PacketStream::Next::kPacket) {
    packets.emplace_back(reinterpret_cast<const char*>(view.data), view.size);
  }
  if (last) *last = next;
  return packets;
}

// Three packets: plain length, a 5-byte padded length (as the agent writes
// it), and an empty one.
const std::vector<std::string> kPackets = {"first packet", std::string(300, 'x'), ""};
std::string Wire() { return test::Frame(kPackets[0]) + test::Frame(kPackets[1], 5) + test::Frame(kPackets[2]); }

TEST(PacketStream, SplitAtEveryByteBoundary) {
  const std::string wire = Wire();
  for (size_t split = 0; split <= wire.size(); ++split) {
    PacketStream stream(64);
    stream.Append(wire.data(), split);
    std::vector<std::string> got = Drain(stream);
    stream.Append(wire.data() + split, wire.size() - split);
    for (auto& packet : Drain(stream)) got.push_back(packet);
    EXPECT_EQ(got, kPackets) << "split at byte " << split;
    EXPECT_EQ(stream.pending_bytes(), 0u);
  }
}

TEST(PacketStream, OneByteAtATime) {
  const std::string wire = Wire();
  PacketStream stream(16);
  std::vector<std::string> got;
  for (char c : wire) {
    stream.Append(&c, 1);
    for (auto& packet : Drain(stream)) got.push_back(packet);
  }
  EXPECT_EQ(got, kPackets);
}

TEST(PacketStream, PacketLargerThanReadChunk) {
  std::string big(100000, 'b');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
  PacketStream stream(1000);
  std::string wire = test::Frame(big, 5) + test::Frame("tail");
  stream.Append(wire.data(), wire.size());
  EXPECT_EQ(Drain(stream), (std::vector<std::string>{big, "tail"}));
}

TEST(PacketStream, LeavesAnUnfinishedPacketPending) {
  std::string wire = test::Frame("complete") + test::Frame("cut short");
  PacketStream stream;
  stream.Append(wire.data(), wire.size() - 3);
  PacketStream::Next last;
  EXPECT_EQ(Drain(stream, &last), std::vector<std::string>{"complete"});
  EXPECT_EQ(last, PacketStream::Next::kNeedMore);
  EXPECT_EQ(stream.pending_bytes(), test::Frame("cut short").size() - 3);
}

TEST(PacketStream, RejectsLengthOverTheLimit) {
  std::string wire = test::Frame("ok");
  uint8_t length[wire::kMaxVarintBytes];
  uint8_t* end = wire::WriteVarint(length, wire::kMaxPacketBytes + 1);
  wire.append(reinterpret_cast<char*>(length), reinterpret_cast<char*>(end));
  PacketStream stream;
  stream.Append(wire.data(), wire.size());
  PacketStream::Next last;
  EXPECT_EQ(Drain(stream, &last), std::vector<std::string>{"ok"});
  EXPECT_EQ(last, PacketStream::Next::kError);
  EXPECT_EQ(stream.error(), "packet length 67108865 exceeds the 67108864-byte limit");
  // The error sticks: later bytes do not resynchronise on garbage.
  std::string more = test::Frame("late");
  stream.Append(more.data(), more.size());
  EXPECT_EQ(Drain(stream, &last), std::vector<std::string>{});
  EXPECT_EQ(last, PacketStream::Next::kError);
}

TEST(PacketStream, AcceptsPacketOfExactlyTheLimitLength) {
  std::string header;
  uint8_t length[wire::kMaxVarintBytes];
  uint8_t* end = wire::WriteVarint(length, wire::kMaxPacketBytes);
  header.assign(reinterpret_cast<char*>(length), reinterpret_cast<char*>(end));
  PacketStream stream;
  stream.Append(header.data(), header.size());
  PacketView view;
  EXPECT_EQ(stream.NextPacket(&view), PacketStream::Next::kNeedMore);
}

TEST(PacketStream, RejectsVarintLongerThanTenBytes) {
  std::string wire(11, '\x80');
  PacketStream stream;
  stream.Append(wire.data(), wire.size());
  PacketView view;
  EXPECT_EQ(stream.NextPacket(&view), PacketStream::Next::kError);
  EXPECT_EQ(stream.error(), "bad packet length (a varint longer than 10 bytes)");
}

TEST(PacketStream, ReadsFromAFileDescriptorInPieces) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string wire = Wire();
  PacketStream stream(8);  // smaller than a packet: several reads per packet
  std::vector<std::string> got;
  for (size_t at = 0; at < wire.size(); at += 7) {
    std::string piece = wire.substr(at, 7);
    ASSERT_TRUE(test::WriteAll(fds[1], piece));
    ASSERT_EQ(stream.ReadFrom(fds[0]), static_cast<ssize_t>(piece.size()));
    for (auto& packet : Drain(stream)) got.push_back(packet);
  }
  close(fds[1]);
  EXPECT_EQ(stream.ReadFrom(fds[0]), 0);
  close(fds[0]);
  EXPECT_EQ(got, kPackets);
}

}  // namespace
}  // namespace memframe::injector
