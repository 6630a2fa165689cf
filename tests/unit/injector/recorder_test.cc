#include "recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "fake_agent_client.h"
#include "launch.h"
#include "memframe/capture_file.h"

namespace memframe::injector {
namespace {

using Records = std::vector<std::pair<uint32_t, std::string>>;

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    socket_ = AgentSocket::Create(&error);
    ASSERT_TRUE(socket_) << error;
    capture_ = wire::CaptureWriter::Create(dir_.File("test.mfc"), &error);
    ASSERT_TRUE(capture_) << error;
    recorder_ = std::make_unique<Recorder>(socket_->fd(), capture_.get(), log_);
  }

  int Connect() {
    int fd = test::ConnectTo(socket_->path());
    EXPECT_GE(fd, 0);
    return fd;
  }

  // Polls until `connections` have been accepted and all of them closed.
  // The deadline only guards against a hang; no assertion is about time.
  void PumpUntilClosed() {
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    do {
      recorder_->PollOnce(50);
      if (recorder_->open_connections() == 0) recorder_->PollOnce(0);
    } while (recorder_->open_connections() > 0 && std::chrono::steady_clock::now() < give_up);
    ASSERT_EQ(recorder_->open_connections(), 0u);
  }

  Records ReadBack() {
    recorder_.reset();
    EXPECT_TRUE(capture_->Close());
    std::string error;
    auto reader = wire::CaptureReader::Open(dir_.File("test.mfc"), &error);
    EXPECT_TRUE(reader) << error;
    Records records;
    wire::CaptureRecord record;
    while (reader && reader->Next(&record)) {
      records.emplace_back(record.stream, std::string(record.packet.begin(), record.packet.end()));
    }
    if (reader) {
      EXPECT_EQ(reader->error(), "");
    }
    return records;
  }

  test::TempDir dir_;
  std::ostringstream log_;
  std::unique_ptr<AgentSocket> socket_;
  std::unique_ptr<wire::CaptureWriter> capture_;
  std::unique_ptr<Recorder> recorder_;
};

TEST_F(RecorderTest, RecordsEachConnectionAsAStreamWithPacketsUnchanged) {
  const std::string a[] = {test::HelloPacket(), test::ThreadPacket(11, "main"), test::EventsPacket(11, 1000),
                           test::EndPacket(1000)};
  const std::string b[] = {test::HelloPacket(), test::EventsPacket(12, 3), test::EndPacket(3)};
  int first = Connect();
  int second = Connect();
  // Padded and plain lengths, interleaved writes on the two connections.
  ASSERT_TRUE(test::WriteAll(first, test::Frame(a[0], 5) + test::Frame(a[1])));
  ASSERT_TRUE(test::WriteAll(second, test::Frame(b[0]) + test::Frame(b[1], 5)));
  ASSERT_TRUE(test::WriteAll(first, test::Frame(a[2], 5) + test::Frame(a[3])));
  ASSERT_TRUE(test::WriteAll(second, test::Frame(b[2])));
  close(first);
  close(second);
  PumpUntilClosed();
  EXPECT_EQ(recorder_->recorded_streams(), 2u);
  EXPECT_EQ(log_.str(), "");

  Records stream1, stream2;
  for (auto& record : ReadBack()) {
    ASSERT_TRUE(record.first == 1 || record.first == 2) << record.first;
    (record.first == 1 ? stream1 : stream2).push_back(record);
  }
  EXPECT_EQ(stream1, (Records{{1, a[0]}, {1, a[1]}, {1, a[2]}, {1, a[3]}}));
  EXPECT_EQ(stream2, (Records{{2, b[0]}, {2, b[1]}, {2, b[2]}}));
}

TEST_F(RecorderTest, RefusesAnotherProtocolVersionAndKeepsRecordingOthers) {
  int old_agent = Connect();
  int good_agent = Connect();
  ASSERT_TRUE(test::WriteAll(old_agent, test::Frame(test::HelloPacket(99)) + test::Frame(test::EndPacket(0))));
  ASSERT_TRUE(test::WriteAll(good_agent, test::Frame(test::HelloPacket()) + test::Frame(test::EndPacket(0))));
  close(old_agent);
  close(good_agent);
  PumpUntilClosed();
  EXPECT_EQ(log_.str(), "memframe: pid " + std::to_string(getpid()) +
                            " speaks protocol v99, this memframe speaks v" + std::to_string(wire::kProtocolVersion) +
                            "; not recording it\n");
  EXPECT_EQ(recorder_->recorded_streams(), 1u);
  EXPECT_EQ(ReadBack(), (Records{{2, test::HelloPacket()}, {2, test::EndPacket(0)}}));
}

TEST_F(RecorderTest, RefusesAConnectionThatDoesNotStartWithHello) {
  int fd = Connect();
  ASSERT_TRUE(test::WriteAll(fd, test::Frame(test::ThreadPacket(1, "x")) + test::Frame(test::HelloPacket())));
  close(fd);
  PumpUntilClosed();
  EXPECT_EQ(log_.str(), "memframe: pid " + std::to_string(getpid()) + " did not say hello; not recording it\n");
  EXPECT_EQ(ReadBack(), Records{});
}

TEST_F(RecorderTest, PeerDisappearingMidPacketKeepsEarlierPackets) {
  int fd = Connect();
  std::string cut = test::Frame(test::EventsPacket(5, 100));
  ASSERT_TRUE(test::WriteAll(fd, test::Frame(test::HelloPacket()) + test::Frame(test::ThreadPacket(5, "render")) +
                                     cut.substr(0, cut.size() / 2)));
  close(fd);
  PumpUntilClosed();
  EXPECT_EQ(log_.str(), "memframe: pid " + std::to_string(getpid()) +
                            " (stream 1) stopped in the middle of a packet; keeping the 2 packets before it\n");
  EXPECT_EQ(ReadBack(), (Records{{1, test::HelloPacket()}, {1, test::ThreadPacket(5, "render")}}));
}

TEST_F(RecorderTest, GarbageClosesOnlyThatConnection) {
  int bad = Connect();
  int good = Connect();
  // "\x08\x01" is Packet field 1 as a varint: no agent writes that.
  ASSERT_TRUE(test::WriteAll(bad, test::Frame(test::HelloPacket()) + test::Frame(std::string("\x08\x01", 2)) +
                                      test::Frame(test::EndPacket(0))));
  ASSERT_TRUE(test::WriteAll(good, test::Frame(test::HelloPacket()) + test::Frame(test::EndPacket(0))));
  close(bad);
  close(good);
  PumpUntilClosed();
  EXPECT_EQ(log_.str(), "memframe: pid " + std::to_string(getpid()) +
                            " (stream 1) sent a packet memframe cannot read; closed it, keeping the 1 packets before "
                            "it\n");
  EXPECT_EQ(ReadBack(), (Records{{1, test::HelloPacket()}, {2, test::HelloPacket()}, {2, test::EndPacket(0)}}));
}

TEST_F(RecorderTest, OversizeLengthClosesTheConnectionWithAMessage) {
  int fd = Connect();
  ASSERT_TRUE(test::WriteAll(fd, test::Frame(test::HelloPacket()) + std::string("\xff\xff\xff\xff\x0f", 5)));
  PumpUntilClosed();
  close(fd);
  EXPECT_EQ(log_.str(), "memframe: pid " + std::to_string(getpid()) +
                            " (stream 1) sent a damaged stream (packet length 4294967295 exceeds the 67108864-byte "
                            "limit); closed it, keeping the 1 packets before the damage\n");
  EXPECT_EQ(ReadBack(), (Records{{1, test::HelloPacket()}}));
}

TEST_F(RecorderTest, PacketsLargerThanTheSocketBufferArriveWhole) {
  const std::string big = test::StacksPacket(8000);  // several MiB
  ASSERT_GT(big.size(), 2u << 20);
  int fd = Connect();
  std::thread agent([&] {
    test::WriteAll(fd, test::Frame(test::HelloPacket()) + test::Frame(big, 5) + test::Frame(big));
    close(fd);
  });
  PumpUntilClosed();
  agent.join();
  EXPECT_EQ(log_.str(), "");
  EXPECT_EQ(ReadBack(), (Records{{1, test::HelloPacket()}, {1, big}, {1, big}}));
}

TEST(PeekPacketBody, ReadsOnlyTheFirstTag) {
  auto peek = [](const std::string& bytes) {
    return PeekPacketBody({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  };
  EXPECT_EQ(peek(test::HelloPacket()), PacketBody::kHello);
  EXPECT_EQ(peek(test::ThreadPacket(1, "t")), PacketBody::kOther);
  EXPECT_EQ(peek(test::EventsPacket(1, 10)), PacketBody::kOther);
  EXPECT_EQ(peek(test::EndPacket(1)), PacketBody::kOther);
  EXPECT_EQ(peek(std::string("\x4a\x00", 2)), PacketBody::kOther);    // field 9 (recorder), empty
  EXPECT_EQ(peek(std::string("\x52\x00", 2)), PacketBody::kInvalid);  // field 10: not ours
  EXPECT_EQ(peek(std::string("\x5a\x00", 2)), PacketBody::kInvalid);  // field 11: not ours
  EXPECT_EQ(peek(std::string("\x62\x00", 2)), PacketBody::kOther);    // field 12 (allocators), empty
  EXPECT_EQ(peek(std::string("\x6a\x00", 2)), PacketBody::kOther);    // field 13 (the Windows agent's symbols)
  EXPECT_EQ(peek(std::string("\x08\x01", 2)), PacketBody::kInvalid);  // field 1 as a varint
  EXPECT_EQ(peek(std::string("\x0a\x05" "ab", 4)), PacketBody::kInvalid);  // body longer than the packet
  EXPECT_EQ(peek(""), PacketBody::kInvalid);
}

}  // namespace
}  // namespace memframe::injector
