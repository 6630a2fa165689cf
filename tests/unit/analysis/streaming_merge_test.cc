// The streaming merge (thread_merge.h) lets events out in the order the
// whole-stream merge gives, holds at most its cap of events however many
// fall within its margin, and fails (never reorders) when a batch comes
// with an event older than one it already let out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "thread_merge.h"

namespace memframe::analysis {
namespace {

struct Collect : EventSink {
  void Push(const Event& e) override { out.push_back(e); }
  std::vector<Event> out;
};

Event At(uint64_t ticks, uint64_t tag) {
  Event e;
  e.ticks = ticks;
  e.address = tag;  // which event this is, to check the order
  return e;
}

constexpr uint64_t kWideMargin = uint64_t{1} << 40;  // never reached here

// Two threads whose batches interleave in time, all within the margin:
// only the cap makes events go out before the end.
struct TwoThreads {
  std::vector<std::vector<Event>> batches;
  std::vector<uint16_t> thread;
  std::vector<Event> expected;  // (ticks, arrival) order
  TwoThreads(int rounds, int per_batch) {
    uint64_t tag = 0;
    for (int r = 0; r < rounds; ++r) {
      // Thread 1's batch arrives first but starts later; equal ticks go to
      // the earlier arrival.
      for (uint16_t t : {1, 0}) {
        std::vector<Event> batch;
        for (int i = 0; i < per_batch; ++i)
          batch.push_back(At(uint64_t(r) * 1000 + uint64_t(i) * 4 + (t == 1 ? 2 : 0) + (i % 5 == 0 ? 2 : 0), tag++));
        batches.push_back(batch);
        thread.push_back(t);
      }
    }
    struct Arrived {
      Event e;
      size_t arrival;
    };
    std::vector<Arrived> all;
    for (size_t b = 0; b < batches.size(); ++b)
      for (const Event& e : batches[b]) all.push_back({e, b});
    std::stable_sort(all.begin(), all.end(), [](const Arrived& a, const Arrived& b) { return a.e.ticks < b.e.ticks; });
    for (const Arrived& a : all) expected.push_back(a.e);
  }
};

std::vector<uint64_t> Tags(const std::vector<Event>& events) {
  std::vector<uint64_t> tags;
  for (const Event& e : events) tags.push_back(e.address);
  return tags;
}

TEST(StreamingMerge, MoreEventsWithinTheMarginThanItsCapGoOutOldestFirstInTheMergesOrder) {
  TwoThreads input(50, 20);
  Collect sink;
  constexpr uint64_t kCap = 64;
  StreamingMerge merge(&sink, kCap, kWideMargin);
  uint64_t added = 0;
  for (size_t b = 0; b < input.batches.size(); ++b) {
    merge.AddBatch(input.thread[b], input.batches[b], b);
    added += input.batches[b].size();
    ASSERT_FALSE(merge.failed()) << "batch " << b;
    EXPECT_LE(added - sink.out.size(), kCap) << "batch " << b;
  }
  EXPECT_GT(sink.out.size(), 0u);  // the cap, not the end, let these out
  merge.Finish();
  EXPECT_EQ(Tags(sink.out), Tags(input.expected));
}

TEST(StreamingMerge, WithinItsCapEventsWaitForTheMargin) {
  TwoThreads input(50, 20);
  Collect sink;
  StreamingMerge merge(&sink, 1u << 20, kWideMargin);
  for (size_t b = 0; b < input.batches.size(); ++b) merge.AddBatch(input.thread[b], input.batches[b], b);
  EXPECT_EQ(sink.out.size(), 0u);
  merge.Finish();
  EXPECT_FALSE(merge.failed());
  EXPECT_EQ(Tags(sink.out), Tags(input.expected));
}

TEST(StreamingMerge, ABatchOlderThanWhatTheCapLetOutFails) {
  Collect sink;
  StreamingMerge merge(&sink, 4, kWideMargin);
  merge.AddBatch(0, {At(100, 1), At(110, 2), At(120, 3), At(130, 4), At(140, 5), At(150, 6)}, 0);
  ASSERT_FALSE(merge.failed());
  ASSERT_FALSE(sink.out.empty());
  const uint64_t let_out = sink.out.back().ticks;
  merge.AddBatch(1, {At(let_out - 1, 7)}, 1);
  EXPECT_TRUE(merge.failed());
}

TEST(StreamingMerge, ABatchAsOldAsTheLastEventLetOutStillMerges) {
  Collect sink;
  StreamingMerge merge(&sink, 4, kWideMargin);
  merge.AddBatch(0, {At(100, 1), At(110, 2), At(120, 3), At(130, 4), At(140, 5), At(150, 6)}, 0);
  const uint64_t let_out = sink.out.back().ticks;
  merge.AddBatch(1, {At(let_out, 7)}, 1);
  EXPECT_FALSE(merge.failed());
  merge.Finish();
  EXPECT_EQ(sink.out.size(), 7u);
}

TEST(StreamingMerge, EventsOlderThanTheMarginGoOutWithoutTheCap) {
  Collect sink;
  StreamingMerge merge(&sink, 1u << 20, 1000);
  merge.AddBatch(0, {At(100, 1), At(200, 2)}, 0);
  merge.AddBatch(1, {At(150, 3), At(1150, 4)}, 1);
  EXPECT_EQ(Tags(sink.out), (std::vector<uint64_t>{1}));  // below 1150 - 1000
  merge.AddBatch(0, {At(2300, 5)}, 2);
  EXPECT_EQ(Tags(sink.out), (std::vector<uint64_t>{1, 3, 2, 4}));
}

// A stream of 60,000 threads, each alive a moment (thread churn): every
// event comes out once, in (ticks, arrival) order, the runner-up kept right
// as the earliest thread changes at nearly every event. (The merge kept its
// threads in a list it scanned at each change: 100,000 threads took 49 s.)
TEST(StreamingMerge, ManyThreadsComeOutInOrder) {
  constexpr uint16_t kThreads = 60000;
  Collect out;
  StreamingMerge merge(&out, /*max_pending=*/4096, /*margin_ticks=*/5000);
  std::vector<Event> expected;
  uint64_t arrival = 0, tag = 0;
  // Thread t's two events at 10t + 3 and 10t + 25: each thread's batch
  // overlaps the next two threads' in time, and they arrive in thread order.
  for (uint16_t t = 0; t < kThreads; ++t) {
    const uint64_t base = 10 * uint64_t{t};
    merge.AddBatch(t, {At(base + 3, tag), At(base + 25, tag + 1)}, arrival++);
    tag += 2;
  }
  merge.Finish();
  ASSERT_FALSE(merge.failed());
  ASSERT_EQ(out.out.size(), 2u * kThreads);
  for (size_t i = 1; i < out.out.size(); ++i)
    ASSERT_LE(out.out[i - 1].ticks, out.out[i].ticks) << "at " << i;
  // The exact order: by ticks; no two events share one.
  std::vector<uint64_t> tags, want;
  for (const Event& e : out.out) tags.push_back(e.address);
  std::vector<std::pair<uint64_t, uint64_t>> by_ticks;
  for (uint64_t t = 0; t < kThreads; ++t) {
    by_ticks.push_back({10 * t + 3, 2 * t});
    by_ticks.push_back({10 * t + 25, 2 * t + 1});
  }
  std::sort(by_ticks.begin(), by_ticks.end());
  for (const auto& [ticks, tag_of] : by_ticks) want.push_back(tag_of);
  EXPECT_EQ(tags, want);
}

}  // namespace
}  // namespace memframe::analysis
