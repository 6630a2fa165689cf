// The writer's output buffer: what a burst leaves resident, and that
// flushing it in pieces sends the same bytes.
#include "writer/socket_sink.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "resident_pages.h"

namespace memframe::agent {
namespace {

constexpr size_t kPage = 4096;

// A socketpair whose far end a thread reads to the end.
struct Receiver {
  int fds[2] = {-1, -1};
  std::vector<uint8_t> bytes;
  std::thread thread;
  bool Open(SocketSink* sink) {
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0 || !sink->Adopt(fds[0])) return false;
    thread = std::thread([this] {
      uint8_t chunk[1 << 16];
      for (ssize_t n; (n = recv(fds[1], chunk, sizeof(chunk), 0)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
    });
    return true;
  }
  void Finish(SocketSink* sink) {
    sink->Close();
    thread.join();
    close(fds[1]);
  }
};

// One packet with a bytes field of `payload` bytes, each `fill`.
void AddPacket(SocketSink* sink, size_t payload, uint8_t fill) {
  std::vector<uint8_t> data(payload, fill);
  wire::ProtoWriter w = sink->BeginPacket(payload + 16);
  w.Bytes(1, data.data(), data.size());
  sink->EndPacket(w);
}

TEST(SocketSink, ABurstsPagesAboveTheKeptPartAreGivenBackByItsFlush) {
  SocketSink sink;
  Receiver receiver;
  ASSERT_TRUE(receiver.Open(&sink));
  // 3 MiB buffered at once, as a pass of a burst's stack definitions did.
  for (int i = 0; i < 48; ++i) AddPacket(&sink, 64u << 10, static_cast<uint8_t>(i));
  const size_t burst = sink.buffered();
  ASSERT_GT(burst, 3u << 20);
  const size_t above = SocketSink::kOutputBytes - SocketSink::kKeptBytes;
  const uint8_t* high = sink.buffer() + SocketSink::kKeptBytes;
  // Every page the burst wrote above the kept part is resident...
  EXPECT_EQ(ResidentPages(high, above), (burst - SocketSink::kKeptBytes + kPage - 1) / kPage);
  ASSERT_TRUE(sink.Flush());
  // ...and none after the flush; the kept part stays for the next fill.
  EXPECT_EQ(ResidentPages(high, above), 0u);
  EXPECT_EQ(ResidentPages(sink.buffer(), SocketSink::kKeptBytes), SocketSink::kKeptBytes / kPage);
  EXPECT_EQ(sink.bytes_sent(), burst);
  // A fill that stays below the kept part gives nothing back.
  AddPacket(&sink, 100u << 10, 0xAB);
  ASSERT_TRUE(sink.Flush());
  EXPECT_EQ(ResidentPages(sink.buffer(), SocketSink::kKeptBytes), SocketSink::kKeptBytes / kPage);
  receiver.Finish(&sink);
  EXPECT_EQ(receiver.bytes.size(), sink.bytes_sent());
  // The page given back held bytes that were sent before it went.
  EXPECT_EQ(receiver.bytes[burst - 1], 47);
}

TEST(SocketSink, FlushIfFullSendsOnceKFlushAfterBytesAreBuffered) {
  SocketSink sink;
  Receiver receiver;
  ASSERT_TRUE(receiver.Open(&sink));
  AddPacket(&sink, SocketSink::kFlushAfterBytes - 1024, 1);
  const size_t below = sink.buffered();
  ASSERT_LT(below, SocketSink::kFlushAfterBytes);
  EXPECT_TRUE(sink.FlushIfFull());
  EXPECT_EQ(sink.buffered(), below);
  EXPECT_EQ(sink.bytes_sent(), 0u);
  AddPacket(&sink, 2048, 2);
  const size_t full = sink.buffered();
  ASSERT_GE(full, SocketSink::kFlushAfterBytes);
  EXPECT_TRUE(sink.FlushIfFull());
  EXPECT_EQ(sink.buffered(), 0u);
  EXPECT_EQ(sink.bytes_sent(), full);
  receiver.Finish(&sink);
  EXPECT_EQ(receiver.bytes.size(), full);
}

TEST(SocketSink, AStreamFlushedAfterEachPacketIsTheSameBytes) {
  SocketSink whole, pieces;
  Receiver whole_receiver, pieces_receiver;
  ASSERT_TRUE(whole_receiver.Open(&whole));
  ASSERT_TRUE(pieces_receiver.Open(&pieces));
  for (int i = 0; i < 40; ++i) {
    const size_t payload = (static_cast<size_t>(i) * 37 % 11 + 1) << 14;
    AddPacket(&whole, payload, static_cast<uint8_t>(i));
    AddPacket(&pieces, payload, static_cast<uint8_t>(i));
    ASSERT_TRUE(pieces.FlushIfFull());
  }
  EXPECT_GT(pieces.bytes_sent(), 0u);  // it did flush in pieces
  ASSERT_TRUE(whole.Flush());
  ASSERT_TRUE(pieces.Flush());
  whole_receiver.Finish(&whole);
  pieces_receiver.Finish(&pieces);
  EXPECT_EQ(whole_receiver.bytes.size(), whole.bytes_sent());
  EXPECT_TRUE(whole_receiver.bytes == pieces_receiver.bytes);
}

}  // namespace
}  // namespace memframe::agent
