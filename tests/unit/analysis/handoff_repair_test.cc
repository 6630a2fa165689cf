// The merge undoes clock races on blocks handed between threads
// (handoff_repair.h): a block freed on one thread and reused on another, or
// allocated on one and freed on another, stamped in the wrong order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/heap_analysis.h"
#include "load_test_capture.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::Free;
using testing::LoadTestCapture;
using testing::TestCapture;
using testing::TestEvent;

constexpr uint64_t kX = 0x1000, kY = 0x2000, kZ = 0x3000;

struct Seen {
  uint32_t tid;
  EventKind kind;
  uint64_t address;
  uint64_t ticks;
  bool operator==(const Seen& o) const {
    return tid == o.tid && kind == o.kind && address == o.address && ticks == o.ticks;
  }
};
std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{tid " << s.tid << " kind " << int(s.kind) << " 0x" << std::hex << s.address << std::dec << " @"
            << s.ticks << "}";
}

std::vector<Seen> Order(const Capture& c) {
  std::vector<Seen> out;
  for (const Event& e : c.main.events) out.push_back({c.main.threads[e.thread].tid, e.kind(), e.address, e.ticks});
  return out;
}

TEST(HandoffRepair, ABlockReusedOnAnotherThreadBeforeItsFreeIsStampedGoesAfterTheFree) {
  // Thread 1 frees Y and then X; thread 2 gets X back at once, but its
  // stamp (995) came out before thread 1's (1000).
  TestCapture tc;
  tc.Batch(1, {Alloc(100, 0, kX, 32, 1), Alloc(200, 0, kY, 32, 1), Free(997, 0, kY), Free(1000, 0, kX)});
  tc.Batch(2, {Alloc(995, 0, kX, 32, 2), Free(2000, 0, kX)});
  Capture c = LoadTestCapture(tc, "reuse_race");
  EXPECT_EQ(c.main.handoffs_repaired, 1u);
  std::vector<Seen> want = {{1, EventKind::kAlloc, kX, 100}, {1, EventKind::kAlloc, kY, 200},
                            {1, EventKind::kFree, kY, 995},  {1, EventKind::kFree, kX, 995},
                            {2, EventKind::kAlloc, kX, 995}, {2, EventKind::kFree, kX, 2000}};
  EXPECT_EQ(Order(c), want);
  HeapAnalysis h = AnalyzeHeap(c.main);
  EXPECT_EQ(h.anomalies.allocs_over_live, 0u);
  EXPECT_EQ(h.anomalies.unknown_frees, 0u);
  EXPECT_EQ(h.leaks.total_blocks, 0u);
  EXPECT_EQ(h.frees, 3u);
}

TEST(HandoffRepair, ABlockFreedOnAnotherThreadBeforeItsAllocationIsStampedGoesAfterIt) {
  TestCapture tc;
  tc.Batch(1, {Alloc(500, 0, kZ, 64, 1), Alloc(600, 0, kX, 8, 1)});
  tc.Batch(2, {Free(498, 0, kZ)});
  Capture c = LoadTestCapture(tc, "free_race");
  EXPECT_EQ(c.main.handoffs_repaired, 1u);
  std::vector<Seen> want = {{1, EventKind::kAlloc, kZ, 498}, {2, EventKind::kFree, kZ, 498},
                            {1, EventKind::kAlloc, kX, 600}};
  EXPECT_EQ(Order(c), want);
  HeapAnalysis h = AnalyzeHeap(c.main);
  EXPECT_EQ(h.anomalies.unknown_frees, 0u);
  EXPECT_EQ(h.leaks.total_blocks, 1u);  // X only
}

// Thread 1 allocates X and hands it over; thread 2 frees it and gets the
// same address straight back from its own cache. All three stamps fall in
// one tick unit and thread 2's batch arrived first, so the merge sees the
// free, the reuse and only then the allocation that explains them.
TEST(HandoffRepair, AHandedBlockFreedAndReusedByItsReceiverGoesAfterItsAllocation) {
  TestCapture tc;
  tc.Batch(2, {Free(1000, 0, kX), Alloc(1000, 0, kX, 16, 2), Free(3000, 0, kX)});
  tc.Batch(1, {Alloc(1000, 0, kX, 32, 1), Alloc(2000, 0, kY, 8, 1)});
  Capture c = LoadTestCapture(tc, "reuse_by_receiver");
  EXPECT_EQ(c.main.handoffs_repaired, 1u);
  std::vector<Seen> want = {{1, EventKind::kAlloc, kX, 1000}, {2, EventKind::kFree, kX, 1000},
                            {2, EventKind::kAlloc, kX, 1000}, {1, EventKind::kAlloc, kY, 2000},
                            {2, EventKind::kFree, kX, 3000}};
  EXPECT_EQ(Order(c), want);
  HeapAnalysis h = AnalyzeHeap(c.main);
  EXPECT_EQ(h.anomalies.allocs_over_live, 0u);
  EXPECT_EQ(h.anomalies.unknown_frees, 0u);
  EXPECT_EQ(h.leaks.total_blocks, 1u);  // Y only
}

TEST(HandoffRepair, AContradictionNothingExplainsInTimeStays) {
  TestCapture tc;
  tc.Batch(1, {Alloc(100, 0, kX, 32, 1), Free(1000 + (uint64_t{1} << 16) + 1, 0, kX)});
  tc.Batch(2, {Alloc(1000, 0, kX, 32, 2)});
  Capture c = LoadTestCapture(tc, "late");
  EXPECT_EQ(c.main.handoffs_repaired, 0u);
  HeapAnalysis h = AnalyzeHeap(c.main);
  EXPECT_EQ(h.anomalies.allocs_over_live, 1u);
}

TEST(HandoffRepair, OneThreadsOwnContradictionsAreNeverReordered) {
  // Thread 1 allocates X twice (a free it made was not recorded); thread 2
  // only allocates elsewhere. Only a free from another thread explains an
  // allocation over a live block.
  TestCapture tc;
  tc.Batch(1, {Alloc(100, 0, kX, 32, 1), Alloc(200, 0, kX, 32, 1), Free(300, 0, kX)});
  tc.Batch(2, {Alloc(150, 0, kY, 32, 2), Free(250, 0, kZ)});
  Capture c = LoadTestCapture(tc, "own");
  EXPECT_EQ(c.main.handoffs_repaired, 0u);
  HeapAnalysis h = AnalyzeHeap(c.main);
  EXPECT_EQ(h.anomalies.allocs_over_live, 1u);
  EXPECT_EQ(h.anomalies.unknown_frees, 1u);
}

// Two threads freeing blocks nobody saw allocated (made before the agent
// started), many at once: nothing resolves them, nothing moves, every event
// comes out in tick order.
TEST(HandoffRepair, ManyContradictionsNothingResolvesMoveNothing) {
  TestCapture tc;
  std::vector<TestEvent> one, two;
  for (uint64_t i = 0; i < 20000; ++i) {
    one.push_back(Free(100 + 4 * i, 0, 0x100000 + 16 * i));
    two.push_back(Free(102 + 4 * i, 0, 0x900000 + 16 * i));
  }
  tc.Batch(1, one);
  tc.Batch(2, two);
  Capture c = LoadTestCapture(tc, "unresolved");
  EXPECT_EQ(c.main.handoffs_repaired, 0u);
  ASSERT_EQ(c.main.events.size(), 40000u);
  uint64_t previous = 0, out_of_order = 0;
  for (const Event& e : c.main.events) out_of_order += e.ticks < previous, previous = e.ticks;
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(AnalyzeHeap(c.main).anomalies.unknown_frees, 40000u);
}

// Two threads hand blocks back and forth through a shared free list; one
// stamp in 20 is read early by up to 1.5 event gaps, as an unordered TSC read
// can be (by less than one hook's duration: it passes at most one event).
// Every contradiction that makes is undone, each thread keeps its order, and
// time never goes backwards. (100 seeds tried: ~60 repairs each, none left.)
TEST(HandoffRepair, JitteredStampsOfAHandoffHeavyRunGiveAConsistentHeap) {
  uint64_t seed = 7;
  auto next = [&] { return seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed; };
  std::vector<uint64_t> free_list;  // LIFO, shared: what an allocator hands back first
  std::vector<uint64_t> live;
  uint64_t fresh = 0x10000;
  std::map<uint32_t, std::vector<TestEvent>> by_thread;
  std::map<uint32_t, uint64_t> last_stamp;
  uint64_t jittered = 0;
  for (uint64_t t = 1000; t < 1000 + 20000 * 10; t += 10) {
    uint32_t tid = 1 + static_cast<uint32_t>(next() % 2);
    uint64_t stamp = t;
    if (next() % 20 == 0) stamp -= 1 + next() % 15, ++jittered;
    stamp = std::max(stamp, last_stamp[tid]);
    last_stamp[tid] = stamp;
    if (live.empty() || (live.size() < 50 && next() % 2)) {
      uint64_t a = free_list.empty() ? (fresh += 64) : free_list.back();
      if (!free_list.empty()) free_list.pop_back();
      live.push_back(a);
      by_thread[tid].push_back(Alloc(stamp, 0, a, 48, tid));
    } else {
      size_t k = next() % live.size();
      uint64_t a = live[k];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      free_list.push_back(a);
      by_thread[tid].push_back(Free(stamp, 0, a));
    }
  }
  ASSERT_GT(jittered, 500u);
  TestCapture tc;
  std::map<uint32_t, std::vector<TestEvent>> sent = by_thread;
  for (auto& [tid, events] : by_thread)
    for (size_t i = 0; i < events.size(); i += 700)
      tc.Batch(tid, std::vector<TestEvent>(events.begin() + i, events.begin() + std::min(events.size(), i + 700)));
  Capture c = LoadTestCapture(tc, "jitter");

  HeapAnalysis h = AnalyzeHeap(c.main);
  EXPECT_GT(c.main.handoffs_repaired, 10u);  // the jitter did make races
  EXPECT_EQ(h.anomalies.allocs_over_live, 0u);
  EXPECT_EQ(h.anomalies.unknown_frees, 0u);
  EXPECT_EQ(h.leaks.total_blocks, live.size());
  std::map<uint32_t, size_t> index;
  uint64_t previous_ticks = 0;
  size_t out_of_thread_order = 0, backwards = 0;
  for (const Event& e : c.main.events) {
    uint32_t tid = c.main.threads[e.thread].tid;
    const TestEvent& want = sent[tid][index[tid]++];
    if (want.address != e.address || wire::KindOf(want.kind) != static_cast<uint32_t>(e.kind())) ++out_of_thread_order;
    backwards += e.ticks < previous_ticks;
    previous_ticks = e.ticks;
  }
  EXPECT_EQ(out_of_thread_order, 0u);
  EXPECT_EQ(backwards, 0u);
  EXPECT_EQ(c.main.events.size(), sent[1].size() + sent[2].size());
}

}  // namespace
}  // namespace memframe::analysis
