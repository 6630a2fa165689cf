// The loader's k-way merge of per-thread runs gives exactly the order a
// stable sort by ticks of every event in arrival order gives, over many
// chunks and with ties between threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "memframe/analysis/capture_loader.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

struct Arrived {
  TestEvent event;
  uint32_t tid;
};

TEST(ThreadMerge, EqualsAStableSortByTicksOfTheArrivalOrder) {
  TestCapture tc;
  std::vector<Arrived> arrival;
  uint64_t seed = 99;
  auto next = [&] { return seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed; };
  std::vector<uint64_t> ticks(6, 100);
  uint64_t address = 0x1000;
  // 6 threads, ~60 000 events in batches of 1..3000: several chunks per
  // thread. Ticks step by 0..3, so equal ticks across threads are common.
  for (int batch = 0; batch < 60; ++batch) {
    uint32_t t = static_cast<uint32_t>(next() % 6);
    std::vector<TestEvent> events;
    size_t n = 1 + next() % 2000;
    for (size_t i = 0; i < n; ++i) {
      ticks[t] += next() % 4;
      events.push_back(Alloc(ticks[t], 0, address++, 8, t + 1));
      arrival.push_back({events.back(), 100 + t});
    }
    tc.Batch(100 + t, events);
  }
  TempPath file("merge");
  ASSERT_TRUE(tc.Write(file.path()));
  Capture c;
  std::string error;
  ASSERT_TRUE(LoadCapture(file.path(), &c, &error)) << error;
  ASSERT_GT(c.main.events.chunk_count(), 4u);

  std::stable_sort(arrival.begin(), arrival.end(),
                   [](const Arrived& a, const Arrived& b) { return a.event.ticks < b.event.ticks; });
  ASSERT_EQ(c.main.events.size(), arrival.size());
  size_t i = 0, mismatches = 0;
  for (const Event& e : c.main.events) {
    if (e.address != arrival[i].event.address || e.ticks != arrival[i].event.ticks ||
        c.main.threads[e.thread].tid != arrival[i].tid)
      ++mismatches;
    ++i;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(ThreadMerge, OtherStreamsAreSummarisedWithoutBeingMerged) {
  TestCapture tc;
  tc.Batch(1, {Alloc(1, 0, 0x10, 1, 0), Alloc(2, 0, 0x20, 1, 0), Alloc(3, 0, 0x30, 1, 0)});
  wire::Packet hello;
  hello.mutable_hello()->set_protocol_version(testing::kTestBatchProtocol);
  tc.Add(2, hello);
  tc.Add(2, TestCapture::BatchPacket(9, {Alloc(1, 0, 0x10, 1, 0)}));
  tc.Add(2, TestCapture::BatchPacket(8, {Alloc(2, 0, 0x10, 1, 0)}));
  TempPath file("summary");
  ASSERT_TRUE(tc.Write(file.path()));
  Capture c;
  std::string error;
  ASSERT_TRUE(LoadCapture(file.path(), &c, &error)) << error;
  ASSERT_EQ(c.other_streams.size(), 1u);
  EXPECT_EQ(c.other_streams[0].stream_id, 2u);
  EXPECT_EQ(c.other_streams[0].events, 2u);
}

}  // namespace
}  // namespace memframe::analysis
