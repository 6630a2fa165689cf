// Damaged captures: a clear message, everything before the damage kept,
// never a crash or a table sized by a corrupt number.
#include <gtest/gtest.h>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/capture_file.h"
#include "load_test_capture.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::LoadTestCapture;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

TEST(Robustness, AFrameNumberThatWrapsPast2To64IsDamage) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x10, 8, 0), FrameEnd(2, 0)});
  tc.Batch(2, {Alloc(3, 1, 0x20, 8, 0)});
  wire::Packet wraps = TestCapture::BatchPacket(1, {Alloc(4, 0, 0x30, 8, 0), Alloc(5, 2, 0x40, 8, 0)});
  wraps.mutable_events()->set_base_frame(UINT64_MAX - 1);  // + 2 wraps
  tc.Add(wraps);
  tc.Batch(1, {Alloc(6, 2, 0x50, 8, 0)});
  Capture c = LoadTestCapture(tc, "frame_number");
  EXPECT_EQ(c.damage, "stream 1: corrupt batch of thread 1: a frame number past 2^64 (base " +
                          std::to_string(UINT64_MAX - 1) + ")");
  // Both threads' events before the bad batch, merged in order.
  ASSERT_EQ(c.main.events.size(), 3u);
  EXPECT_EQ(c.main.events[2].address, 0x20u);
  HeapAnalysis heap = AnalyzeHeap(c.main);
  EXPECT_EQ(heap.frames.frames.size(), 2u);
}

TEST(Robustness, HugeAndBackwardFrameNumbersAreNotDamage) {
  // The largest frame number there is, and a thread whose frames go
  // backwards between batches: odd, but nothing is wrong with the data.
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 5, 0x10, 8, 0), FrameEnd(2, 5)});
  wire::Packet last = TestCapture::BatchPacket(1, {Alloc(3, 0, 0x20, 16, 0)});
  last.mutable_events()->set_base_frame(UINT64_MAX);
  tc.Add(last);
  tc.Batch(1, {Alloc(4, 3, 0x30, 32, 0)});
  tc.End();
  Capture c = LoadTestCapture(tc, "huge_frames");
  EXPECT_EQ(c.damage, "");
  ASSERT_EQ(c.main.events.size(), 4u);
  EXPECT_EQ(c.main.events[2].frame, UINT64_MAX);
  HeapAnalysis heap = AnalyzeHeap(c.main);
  ASSERT_EQ(heap.frames.frames.size(), 3u);
  EXPECT_EQ(heap.frames.frames[0].frame, 3u);
  EXPECT_EQ(heap.frames.frames[1].frame, 5u);
  EXPECT_EQ(heap.frames.frames[2].frame, UINT64_MAX);
  EXPECT_EQ(heap.frames.frames[2].bytes_allocated, 16u);
  EXPECT_EQ(heap.frames.frames[2].live_bytes, 56u);
  EXPECT_EQ(heap.live_sets.AtFrame(c.main, UINT64_MAX).live_bytes(), 56u);
  EXPECT_EQ(heap.live_sets.AtFrame(c.main, 4).live_bytes(), 32u);
}

// A live viewer reads the capture while the recorder writes it: after a
// flush, every record written so far must come back, whatever the sizes
// (the decompressor may hold output back when a call fills its buffer).
// A live viewer can open the file the moment the recorder created it
// (live_follow caught "bad magic" there): it is a capture with no records.
TEST(Robustness, ANewCaptureOpensBeforeAnyRecordIsFlushed) {
  TempPath file("new");
  std::string error;
  auto writer = wire::CaptureWriter::Create(file.path(), &error);
  ASSERT_TRUE(writer) << error;
  uint8_t packet[3] = {1, 2, 3};
  ASSERT_TRUE(writer->Append(1, packet, sizeof packet));  // buffered, not flushed
  auto reader = wire::CaptureReader::Open(file.path(), &error);
  ASSERT_TRUE(reader) << error;
  wire::CaptureRecord record;
  EXPECT_FALSE(reader->Next(&record));
  // Once flushed, a reader opened now gets the record.
  ASSERT_TRUE(writer->Flush());
  reader = wire::CaptureReader::Open(file.path(), &error);
  ASSERT_TRUE(reader) << error;
  EXPECT_TRUE(reader->Next(&record));
}

TEST(Robustness, AFlushedButOpenCaptureGivesBackEveryRecord) {
  uint64_t seed = 7;
  auto next = [&seed] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
  for (int round = 0; round < 6; ++round) {
    TempPath file("flushed");
    std::string error;
    auto writer = wire::CaptureWriter::Create(file.path(), &error);
    ASSERT_TRUE(writer) << error;
    std::vector<uint8_t> packet;
    int written = 0;
    for (size_t total = 0; total < (1u << 20) * (round + 1);) {
      packet.resize(1 + next() % 40000);
      // Half random, half repeated: some blocks compress, some do not.
      for (size_t i = 0; i < packet.size(); ++i) packet[i] = i % 2 ? static_cast<uint8_t>(next() >> 56) : 0x55;
      ASSERT_TRUE(writer->Append(1, packet.data(), packet.size()));
      total += packet.size();
      ++written;
    }
    ASSERT_TRUE(writer->Flush());
    auto reader = wire::CaptureReader::Open(file.path(), &error);
    ASSERT_TRUE(reader) << error;
    wire::CaptureRecord record;
    int read = 0;
    while (reader->Next(&record)) ++read;
    EXPECT_EQ(read, written) << "round " << round;
  }
}

// The writer ends a zstd block after each large column of a large record
// (capture_file.cc): whatever a record holds, well-formed batch or not, it
// reads back byte for byte.
TEST(Robustness, LargeRecordsCutIntoBlocksAtTheirColumnsReadBackExactly) {
  std::vector<std::string> packets;
  std::vector<TestEvent> events;
  for (uint64_t i = 0; i < 20000; ++i) events.push_back(Alloc(100 + i * 37, i / 500, 0x100000 + i * 48, i % 4000, 1));
  packets.push_back(TestCapture::BatchPacket(1, events).SerializeAsString());
  const std::string batch = packets.back();
  packets.push_back(batch.substr(0, batch.size() / 2));           // the nested length now overruns
  std::string bad_length = batch;
  bad_length[batch.size() / 3] = static_cast<char>(0xff);            // a column's bytes garbled
  packets.push_back(bad_length);
  std::string fixed64 = batch;
  fixed64.insert(fixed64.begin() + 3, {static_cast<char>(0x09), 1, 2, 3, 4, 5, 6, 7, 8});  // wire type 1 inside
  packets.push_back(fixed64);
  packets.push_back(std::string(40000, '\x0a'));                   // tag 1, length-delimited, again and again
  packets.push_back(std::string(16 * 1024, '\0'));

  TempPath file("columns");
  std::string error;
  auto writer = wire::CaptureWriter::Create(file.path(), &error, 1);
  ASSERT_TRUE(writer) << error;
  for (const std::string& p : packets) ASSERT_TRUE(writer->Append(3, p.data(), p.size()));
  ASSERT_TRUE(writer->Close()) << writer->error();
  auto reader = wire::CaptureReader::Open(file.path(), &error);
  ASSERT_TRUE(reader) << error;
  wire::CaptureRecord record;
  for (const std::string& p : packets) {
    ASSERT_TRUE(reader->Next(&record)) << reader->error();
    EXPECT_EQ(record.stream, 3u);
    EXPECT_EQ(std::string(record.packet.begin(), record.packet.end()), p);
  }
  EXPECT_FALSE(reader->Next(&record));
  EXPECT_EQ(reader->error(), "");
}

TEST(Robustness, AMemoryCaptureReadsLikeTheFile) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x10, 8, 0), FrameEnd(2, 0)});
  tc.Batch(2, {Alloc(3, 1, 0x20, 8, 0)});
  TempPath file("memory");
  ASSERT_TRUE(tc.Write(file.path()));
  const std::string bytes = file.ReadAll();
  std::string error;
  auto source = OpenCaptureMemory(bytes.data(), bytes.size(), "in memory", &error);
  ASSERT_TRUE(source) << error;
  Capture c;
  ASSERT_TRUE(LoadCapture(*source, "in memory", &c, &error)) << error;
  EXPECT_EQ(c.path, "in memory");
  EXPECT_EQ(c.main.events.size(), 3u);
  EXPECT_EQ(c.damage, "");

  EXPECT_FALSE(OpenCaptureMemory(bytes.data(), 0, "empty", &error));
  EXPECT_EQ(error, "empty is not a memframe capture (bad magic)");
  std::string other_version = bytes;
  other_version[8] = 9;
  EXPECT_FALSE(OpenCaptureMemory(other_version.data(), other_version.size(), "v9", &error));
  EXPECT_EQ(error, "v9 has capture format version 9; this build reads version 1");
}

TEST(Robustness, EveryCutOfAMultiThreadCaptureLoadsAPrefix) {
  TestCapture tc;
  for (uint32_t i = 0; i < 12; ++i) {
    tc.Batch(1 + i % 3, {Alloc(i * 10 + 1, i, 0x1000 + i * 16, 16, 0), Alloc(i * 10 + 2, i, 0x2000 + i, 8, 0)});
  }
  tc.End();
  TempPath full("multi_full");
  ASSERT_TRUE(tc.Write(full.path()));
  const std::string bytes = full.ReadAll();
  for (size_t cut = 12; cut < bytes.size(); cut += 5) {
    std::string error;
    auto source = OpenCaptureMemory(bytes.data(), cut, "cut", &error);
    ASSERT_TRUE(source) << error;
    Capture c;
    ASSERT_TRUE(LoadCapture(*source, "cut", &c, &error)) << error;
    EXPECT_FALSE(c.damage.empty()) << cut;
    if (!c.has_main) continue;
    // The batches read are the first ones written, whole: ticks 1, 2, 11, 12, ...
    uint64_t i = 0;
    for (const Event& e : c.main.events) {
      EXPECT_EQ(e.ticks, (i / 2) * 10 + 1 + i % 2) << "cut " << cut;
      ++i;
    }
    EXPECT_EQ(i % 2, 0u);
  }
}

}  // namespace
}  // namespace memframe::analysis
