// AnalyzeLifetimes: one site of each class on a hand-built stream, with the
// rule of lifetimes.h applied by hand in the comments.
#include "memframe/analysis/lifetimes.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::Marker;
using testing::ToEvent;

// Frames 0..11 end; frame 12 is the teardown.
//   stack 1  every frame: 16 B allocated and freed in the same frame          -> frame
//   stack 2  every frame: 48 B, freed two frames later (10 and 11 never)       -> pool
//   stack 3  frame 1: 2 x 1000 B, freed in frame 6 (a marker frame)            -> level
//   stack 4  frame 0: 4096 B, freed in the teardown                            -> long-lived
//   stack 5  frame 2: 10 B and 20 B, freed in frame 4                          -> general
//   stack 6  frame 1: 10 x 64 B, all freed in frame 8 (a free burst)           -> level
Stream ClassesStream() {
  Stream s;
  s.markers[9] = "checkpoint";
  uint64_t t = 0;
  auto add = [&](testing::TestEvent e) { s.events.push_back(ToEvent(e)); };
  add(Alloc(++t, 0, 0x4000, 4096, 4));
  for (uint32_t f = 0; f <= 11; ++f) {
    if (f == 6) s.events.push_back(ToEvent(Marker(++t, f, 9)));
    if (f >= 2) add(Free(++t, f, 0x2000 + f - 2));
    add(Alloc(++t, f, 0x2000 + f, 48, 2));
    add(Alloc(++t, f, 0x1000, 16 + f, 1));
    add(Free(++t, f, 0x1000));
    if (f == 1) {
      add(Alloc(++t, f, 0x3000, 1000, 3));
      add(Alloc(++t, f, 0x3100, 1000, 3));
      for (uint64_t i = 0; i < 10; ++i) add(Alloc(++t, f, 0x6000 + i, 64, 6));
    }
    if (f == 2) {
      add(Alloc(++t, f, 0x5000, 10, 5));
      add(Alloc(++t, f, 0x5100, 20, 5));
    }
    if (f == 4) {
      add(Free(++t, f, 0x5000));
      add(Free(++t, f, 0x5100));
    }
    if (f == 6) {
      add(Free(++t, f, 0x3000));
      add(Free(++t, f, 0x3100));
    }
    if (f == 8)
      for (uint64_t i = 0; i < 10; ++i) add(Free(++t, f, 0x6000 + i));
    add(FrameEnd(++t, f));
  }
  add(Free(++t, 12, 0x4000));
  return s;
}

const SiteLifetime& Site(const LifetimeReport& r, uint32_t stack) {
  auto it = std::find_if(r.sites.begin(), r.sites.end(), [&](const SiteLifetime& s) { return s.stack_id == stack; });
  EXPECT_NE(it, r.sites.end()) << "stack " << stack;
  return *it;
}

TEST(Lifetimes, BoundariesAreMarkerFramesAndFreeBursts) {
  LifetimeReport r = AnalyzeLifetimes(ClassesStream());
  // Frees of older blocks per ended frame: 0, 0, then 1 (stack 2) except
  // frame 4 (3), frame 6 (3) and frame 8 (11). Median 1, MAD 0: threshold
  // 1 + 3 * 1 = 4, so frame 8 is a burst; frame 6 is a boundary by its marker.
  EXPECT_EQ(r.boundary_frames, (std::vector<uint64_t>{6, 8}));
  EXPECT_TRUE(r.has_teardown);
  EXPECT_EQ(r.last_ended_frame, 11u);
}

TEST(Lifetimes, EachClassByItsRule) {
  LifetimeReport r = AnalyzeLifetimes(ClassesStream());
  const SiteLifetime& frame = Site(r, 1);
  EXPECT_EQ(frame.lifetime, LifetimeClass::kFrame);
  EXPECT_EQ(frame.freed_same_frame, 12u);
  EXPECT_EQ(frame.peak_live_blocks, 1u);
  EXPECT_EQ(frame.peak_live_bytes, 27u);  // the largest, frame 11's 16 + 11
  EXPECT_EQ(frame.calls_saved, 24u);
  EXPECT_EQ(frame.bytes_saved, 12u * 16 + 66);

  const SiteLifetime& pool = Site(r, 2);
  EXPECT_EQ(pool.lifetime, LifetimeClass::kPool);
  EXPECT_EQ(pool.allocations, 12u);
  EXPECT_EQ(pool.frees, 10u);
  EXPECT_EQ(pool.peak_live_blocks, 2u);  // each frame frees before it allocates
  EXPECT_EQ(pool.freed_at_boundary, 2u);  // the frees of frames 6 and 8
  EXPECT_EQ(pool.lived_to_end, 2u);
  EXPECT_EQ(pool.lifetime_frames_max, 2u);
  EXPECT_EQ(pool.calls_saved, 22u);

  const SiteLifetime& level = Site(r, 3);
  EXPECT_EQ(level.lifetime, LifetimeClass::kLevel);
  EXPECT_EQ(level.freed_at_boundary, 2u);
  EXPECT_EQ(level.peak_live_bytes, 2000u);
  EXPECT_EQ(level.lifetime_frames_max, 5u);

  const SiteLifetime& long_lived = Site(r, 4);
  EXPECT_EQ(long_lived.lifetime, LifetimeClass::kLongLived);
  EXPECT_EQ(long_lived.lived_to_end, 1u);

  const SiteLifetime& general = Site(r, 5);
  EXPECT_EQ(general.lifetime, LifetimeClass::kGeneral);
  EXPECT_EQ(general.calls_saved, 0u);
  EXPECT_EQ(general.bytes_saved, 0u);

  const SiteLifetime& burst = Site(r, 6);
  EXPECT_EQ(burst.lifetime, LifetimeClass::kLevel);
  EXPECT_EQ(burst.peak_live_blocks, 10u);
  EXPECT_EQ(burst.peak_live_bytes, 640u);
}

TEST(Lifetimes, SitesAreOrderedByCallsSaved) {
  LifetimeReport r = AnalyzeLifetimes(ClassesStream());
  ASSERT_EQ(r.sites.size(), 6u);
  std::vector<uint32_t> order;
  for (const SiteLifetime& s : r.sites) order.push_back(s.stack_id);
  // Calls saved: 1 -> 24, 2 -> 22, 6 -> 20, 3 -> 4, 4 -> 2, 5 -> 0.
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 2, 6, 3, 4, 5}));
}

}  // namespace
}  // namespace memframe::analysis
