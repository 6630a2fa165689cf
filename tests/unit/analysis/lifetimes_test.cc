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
//   stack 2  every frame: 48 B, freed two frames later (10 and 11 never)       -> ring
//   stack 3  frame 1: 2 x 1000 B, freed in frame 6 (a marker frame)            -> level
//   stack 4  frame 0: 4096 B, freed in the teardown                            -> long-lived
//   stack 5  frame 2: 10 B and 20 B, freed in frame 4                          -> general
//   stack 6  frame 1: 10 x 64 B, all freed in frame 8 (an unload)              -> level
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

// ClassesStream's phases, as phases.h would cut a game whose frame 8 unloads
// a level: frame 8 is a boundary by them.
std::vector<Phase> ClassesPhases() {
  auto phase = [](PhaseKind kind, uint64_t from, uint64_t to) {
    Phase p;
    p.kind = kind;
    p.frames = {from, to};
    return p;
  };
  return {phase(PhaseKind::kStartup, 0, 0), phase(PhaseKind::kSteady, 1, 7), phase(PhaseKind::kUnload, 8, 8),
          phase(PhaseKind::kSteady, 9, 11), phase(PhaseKind::kTeardown, 12, 12)};
}

const SiteLifetime& Site(const LifetimeReport& r, uint32_t stack) {
  auto it = std::find_if(r.sites.begin(), r.sites.end(), [&](const SiteLifetime& s) { return s.stack_id == stack; });
  EXPECT_NE(it, r.sites.end()) << "stack " << stack;
  return *it;
}

TEST(Lifetimes, BoundariesAreMarkerFramesLoadsUnloadsAndChangesOfPart) {
  LifetimeReport r = AnalyzeLifetimes(ClassesStream(), ClassesPhases());
  // Frame 6 by its marker, frame 8 by its unload.
  EXPECT_EQ(r.boundary_frames, (std::vector<uint64_t>{6, 8}));
  // Without the unload, frame 8's frees are no boundary; a steady phase
  // that follows another (a menu left for the map) starts at one.
  std::vector<Phase> phases = ClassesPhases();
  phases[2].kind = PhaseKind::kSteady;
  EXPECT_EQ(AnalyzeLifetimes(ClassesStream(), phases).boundary_frames, (std::vector<uint64_t>{6, 8, 9}));
  phases.erase(phases.begin() + 2, phases.begin() + 4);
  phases[1].frames.to = 11;
  EXPECT_EQ(AnalyzeLifetimes(ClassesStream(), phases).boundary_frames, (std::vector<uint64_t>{6}));
  EXPECT_TRUE(r.has_teardown);
  EXPECT_EQ(r.last_ended_frame, 11u);
}

TEST(Lifetimes, EachClassByItsRule) {
  LifetimeReport r = AnalyzeLifetimes(ClassesStream(), ClassesPhases());
  const SiteLifetime& frame = Site(r, 1);
  EXPECT_EQ(frame.lifetime, LifetimeClass::kFrame);
  EXPECT_EQ(frame.freed_same_frame, 12u);
  EXPECT_EQ(frame.peak_live_blocks, 1u);
  EXPECT_EQ(frame.peak_live_bytes, 27u);  // the largest, frame 11's 16 + 11
  EXPECT_EQ(frame.calls_saved, 24u);
  EXPECT_EQ(frame.bytes_saved, 12u * 16 + 66);

  // Freed in allocation order, each two frames after it was made (the
  // frees of boundary frames 6 and 8 are no evidence either way).
  const SiteLifetime& pool = Site(r, 2);
  EXPECT_EQ(pool.lifetime, LifetimeClass::kRing);
  EXPECT_EQ(pool.ring_delay_frames, 2u);
  EXPECT_EQ(pool.ring_frees, 8u);
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
  LifetimeReport r = AnalyzeLifetimes(ClassesStream(), ClassesPhases());
  ASSERT_EQ(r.sites.size(), 6u);
  std::vector<uint32_t> order;
  for (const SiteLifetime& s : r.sites) order.push_back(s.stack_id);
  // Calls saved: 1 -> 24, 2 -> 22, 6 -> 20, 3 -> 4, 4 -> 2, 5 -> 0.
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 2, 6, 3, 4, 5}));
}

// Frames 0..19 end:
//   stack 1  every frame: 64 B, freed in allocation order 3 frames later     -> ring (3 slots x 64 B)
//   stack 2  every frame: 64 B, freed after 1 or 3 frames, out of order      -> pool
//   stack 3  every frame: 100 + f B freed in the frame (frame 19: 10,000 B)  -> frame
Stream RingStream() {
  Stream s;
  uint64_t t = 0;
  auto add = [&](testing::TestEvent e) { s.events.push_back(ToEvent(e)); };
  for (uint32_t f = 0; f < 20; ++f) {
    if (f >= 3) add(Free(++t, f, 0x1000 + f - 3));
    // Stack 2: the block of an odd frame lives 3 frames, of an even one 1.
    for (uint32_t made = f >= 3 ? f - 3 : 0; made < f; ++made)
      if (f - made == (made % 2 ? 3u : 1u)) add(Free(++t, f, 0x2000 + made));
    add(Alloc(++t, f, 0x1000 + f, 64, 1));
    add(Alloc(++t, f, 0x2000 + f, 64, 2));
    add(Alloc(++t, f, 0x3000, f == 19 ? 10000 : 100 + f, 3));
    add(Free(++t, f, 0x3000));
    add(FrameEnd(++t, f));
  }
  return s;
}

TEST(Lifetimes, RingsAreFreedInOrderAFixedNumberOfFramesLater) {
  LifetimeReport r = AnalyzeLifetimes(RingStream(), {});
  const SiteLifetime& ring = Site(r, 1);
  EXPECT_EQ(ring.lifetime, LifetimeClass::kRing);
  EXPECT_EQ(ring.ring_delay_frames, 3u);
  EXPECT_EQ(ring.frees, 17u);
  EXPECT_EQ(ring.ring_frees, 17u);
  EXPECT_EQ(ring.peak_live_blocks, 3u);  // each frame frees before it allocates
  EXPECT_EQ(ring.calls_saved, 20u + 17u);
  EXPECT_EQ(Site(r, 2).lifetime, LifetimeClass::kPool);
  EXPECT_EQ(Site(r, 3).lifetime, LifetimeClass::kFrame);
}

TEST(Lifetimes, FrameArenaIsSizedByThe99thPercentileFrame) {
  LifetimeReport r = AnalyzeLifetimes(RingStream(), {});
  // Stack 3 alone is frame-class: 100..118 B in frames 0..18, 10,000 B in
  // frame 19. Nearest rank 99% of 20 frames is the 20th: the largest.
  EXPECT_EQ(r.frame_arena.frames, 20u);
  EXPECT_EQ(r.frame_arena.p99_bytes, 10000u);
  EXPECT_EQ(r.frame_arena.max_bytes, 10000u);
  EXPECT_EQ(r.frame_arena.calls_saved, 40u);
  // Judging frames 0..9 only: 10 frames, the 10th value (109 B).
  LifetimeReport early = AnalyzeLifetimes(RingStream(), {}, std::vector<FrameRange>{{0, 9}});
  EXPECT_EQ(early.frame_arena.frames, 10u);
  EXPECT_EQ(early.frame_arena.p99_bytes, 109u);
}

}  // namespace
}  // namespace memframe::analysis
