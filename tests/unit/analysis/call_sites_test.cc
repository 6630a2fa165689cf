#include "memframe/analysis/call_sites.h"

#include <gtest/gtest.h>

#include "memframe/analysis/heap_analysis.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TestEvent;

// 10 complete frames (0..9) and an unfinished frame 10:
//   stack 1: 2 allocations of 48 bytes in every frame          (the hidden churn)
//   stack 2: one 100-byte allocation in frames 0, 2, 4 and 6      (40% of frames)
//   stack 3: 5 allocations in frame 3 only, sizes 10..50          (a burst)
//   stack 4: allocations in frames 0..4 (1, 2, 3, 4, 5 of 8 bytes) (50%)
CallSiteIndex BuildIndex() {
  std::vector<TestEvent> events;
  uint64_t tick = 0, address = 0x10000;
  auto alloc = [&](uint32_t frame, uint64_t size, uint32_t stack) {
    events.push_back(Alloc(++tick, frame, address, size, stack));
    events.push_back(Free(++tick, frame, address));
    address += 0x100;
  };
  for (uint32_t frame = 0; frame <= 10; ++frame) {
    alloc(frame, 48, 1);
    alloc(frame, 48, 1);
    if (frame % 2 == 0 && frame <= 6) alloc(frame, 100, 2);
    if (frame == 3)
      for (uint64_t size = 10; size <= 50; size += 10) alloc(frame, size, 3);
    if (frame <= 4)
      for (uint32_t i = 0; i <= frame; ++i) alloc(frame, 8, 4);
    if (frame < 10) events.push_back(FrameEnd(++tick, frame));
  }
  Stream s;
  s.threads.push_back({});
  for (const TestEvent& t : events) s.events.push_back(testing::ToEvent(t));
  return AnalyzeHeap(s).sites;
}

TEST(CallSites, SummarizesASiteOverARange) {
  CallSiteIndex index = BuildIndex();
  ASSERT_EQ(index.sites().size(), 4u);
  const SiteHistory* four = index.Find(4);
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(four->allocations, 15u);
  SiteStats s = SummarizeSite(*four, {0, 9}, 10);
  EXPECT_EQ(s.allocations, 15u);
  EXPECT_EQ(s.bytes, 120u);
  EXPECT_EQ(s.frames_with_allocations, 5u);
  EXPECT_EQ(s.frames_in_range, 10u);
  EXPECT_EQ(s.allocs_per_frame_min, 1u);
  EXPECT_EQ(s.allocs_per_frame_max, 5u);
  EXPECT_EQ(s.allocs_per_frame_median, 3u);
  EXPECT_EQ(s.bytes_per_frame_min, 8u);
  EXPECT_EQ(s.bytes_per_frame_max, 40u);
  EXPECT_EQ(s.bytes_per_frame_median, 24u);

  SiteStats narrow = SummarizeSite(*four, {2, 3}, 2);
  EXPECT_EQ(narrow.allocations, 7u);
  EXPECT_EQ(narrow.frames_with_allocations, 2u);
  EXPECT_EQ(narrow.frames_in_range, 2u);
  EXPECT_EQ(narrow.allocs_per_frame_median, 3u);  // lower middle of {3, 4}

  SiteStats burst = SummarizeSite(*index.Find(3), {0, 10}, 11);
  EXPECT_EQ(burst.size_min, 10u);
  EXPECT_EQ(burst.size_max, 50u);
  EXPECT_EQ(burst.bytes, 150u);
  EXPECT_EQ(index.Find(9), nullptr);
}

TEST(CallSites, HiddenSitesAllocateInMostFrames) {
  CallSiteIndex index = BuildIndex();
  auto hidden = FindHiddenSites(index, {0, 9}, 10, 0.5);
  ASSERT_EQ(hidden.size(), 2u);
  EXPECT_EQ(hidden[0].stack_id, 1u);
  EXPECT_EQ(hidden[0].allocations, 20u);
  EXPECT_EQ(hidden[0].bytes, 960u);
  EXPECT_EQ(hidden[0].frames_with_allocations, 10u);
  EXPECT_EQ(hidden[0].allocs_per_frame_min, 2u);
  EXPECT_EQ(hidden[0].allocs_per_frame_max, 2u);
  EXPECT_EQ(hidden[0].bytes_per_frame_median, 96u);
  EXPECT_EQ(hidden[1].stack_id, 4u);  // exactly 50% qualifies

  auto stricter = FindHiddenSites(index, {0, 9}, 10, 0.51);
  ASSERT_EQ(stricter.size(), 1u);
  EXPECT_EQ(stricter[0].stack_id, 1u);

  auto looser = FindHiddenSites(index, {0, 9}, 10, 0.4);
  ASSERT_EQ(looser.size(), 3u);
  EXPECT_EQ(looser[2].stack_id, 2u);

  auto late = FindHiddenSites(index, {5, 9}, 5, 0.5);  // only stack 1 allocates there in most frames
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].frames_in_range, 5u);
  EXPECT_EQ(late[0].allocations, 10u);
}

TEST(CallSites, SitesInRangeByBytes) {
  CallSiteIndex index = BuildIndex();
  auto sites = SitesInRange(index, {0, 10}, 11);
  ASSERT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites[0].stack_id, 1u);  // 22 * 48 = 1056
  EXPECT_EQ(sites[0].bytes, 1056u);
  EXPECT_EQ(sites[1].stack_id, 2u);  // 400
  EXPECT_EQ(sites[2].stack_id, 3u);  // 150
  EXPECT_EQ(sites[3].stack_id, 4u);  // 120
  EXPECT_EQ(SitesInRange(index, {7, 10}, 4).size(), 1u);
}

TEST(CallSites, OutOfOrderFramesFromTwoThreadsAreMerged) {
  CallSiteBuilder builder;
  for (uint32_t frame : {1u, 2u, 1u, 2u, 3u}) {
    Event e;
    e.packed_kind = 1;
    e.stack_id = 7;
    e.size = 4;
    e.frame = frame;
    builder.OnAlloc(e);
  }
  CallSiteIndex index = builder.Finish();
  const SiteHistory* site = index.Find(7);
  ASSERT_NE(site, nullptr);
  ASSERT_EQ(site->frames.size(), 3u);
  EXPECT_EQ(site->frames[0].frame, 1u);
  EXPECT_EQ(site->frames[0].allocations, 2u);
  EXPECT_EQ(site->frames[1].allocations, 2u);
  EXPECT_EQ(site->frames[2].bytes, 4u);
}

}  // namespace
}  // namespace memframe::analysis
