// Phases found from a frame table made by hand: start-up, loads, steady play
// and teardown, with the frames and figures of each.
#include "memframe/analysis/phases.h"

#include <gtest/gtest.h>

namespace memframe::analysis {
namespace {

struct Shape {
  uint64_t first_frame = 0;
  uint64_t frames = 0;
  uint64_t ended = 0;  // frames that ended with a present
};

// Every frame allocates `steady` bytes and frees them, but for the frames
// `heavy` names (frame index -> bytes kept live).
FrameTable MakeTable(Shape shape, uint64_t steady, const std::vector<std::pair<uint64_t, uint64_t>>& heavy) {
  FrameTable t;
  uint64_t live = 0;
  for (uint64_t i = 0; i < shape.frames; ++i) {
    FrameStats f;
    f.frame = shape.first_frame + i;
    f.allocations = 10;
    f.bytes_allocated = steady;
    f.bytes_freed = steady;
    for (auto [index, bytes] : heavy) {
      if (index != i) continue;
      f.allocations += 1000;
      f.bytes_allocated += bytes;
      live += bytes;
    }
    f.live_bytes = live;
    f.ended = i < shape.ended;
    t.frames.push_back(f);
  }
  t.frames_rendered = shape.ended;
  t.last_complete_frame = shape.first_frame + shape.ended - 1;
  return t;
}

void ExpectPhase(const Phase& p, PhaseKind kind, uint64_t from, uint64_t to) {
  EXPECT_EQ(PhaseKindName(p.kind), std::string(PhaseKindName(kind)));
  EXPECT_EQ(p.frames.from, from);
  EXPECT_EQ(p.frames.to, to);
}

TEST(Phases, StartupLoadsSteadyPlayAndTeardown) {
  // Start-up in frames 0-1, a two-frame load at 40-41, a one-frame load at
  // 80, 10 KiB a frame otherwise, frames 100-101 never ended.
  FrameTable t = MakeTable({0, 102, 100}, 10 << 10,
                           {{0, 8 << 20}, {1, 3 << 20}, {40, 5 << 20}, {41, 1 << 20}, {80, 2 << 20}});
  std::vector<Phase> phases = FindPhases(t);
  ASSERT_EQ(phases.size(), 7u);
  ExpectPhase(phases[0], PhaseKind::kStartup, 0, 1);
  ExpectPhase(phases[1], PhaseKind::kSteady, 2, 39);
  ExpectPhase(phases[2], PhaseKind::kLoad, 40, 41);
  ExpectPhase(phases[3], PhaseKind::kSteady, 42, 79);
  ExpectPhase(phases[4], PhaseKind::kLoad, 80, 80);
  ExpectPhase(phases[5], PhaseKind::kSteady, 81, 99);
  ExpectPhase(phases[6], PhaseKind::kTeardown, 100, 101);
  // Figures: what the load allocated and what it left behind.
  EXPECT_EQ(phases[2].bytes_allocated, (6u << 20) + 2 * (10u << 10));
  EXPECT_EQ(phases[2].allocations, 2u * 1010);
  EXPECT_EQ(phases[2].live_before, 11u << 20);
  EXPECT_EQ(phases[2].live_after, 17u << 20);
  ASSERT_NE(LargestLoad(phases), nullptr);
  EXPECT_EQ(LargestLoad(phases)->frames.from, 40u);
  std::vector<FrameRange> steady = SteadyRanges(phases);
  ASSERT_EQ(steady.size(), 3u);
  EXPECT_EQ(steady[1], (FrameRange{42, 79}));
}

TEST(Phases, HeavyFramesAFewFramesApartAreOneLoad) {
  FrameTable t = MakeTable({0, 60, 60}, 4096, {{20, 1 << 20}, {23, 1 << 20}, {27, 1 << 20}});
  std::vector<Phase> phases = FindPhases(t);
  // 20 and 23 are three frames apart (one run); 27 is four after 23.
  ASSERT_EQ(phases.size(), 6u);
  ExpectPhase(phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(phases[2], PhaseKind::kLoad, 20, 23);
  ExpectPhase(phases[4], PhaseKind::kLoad, 27, 27);
  ExpectPhase(phases[5], PhaseKind::kSteady, 28, 59);
}

TEST(Phases, ASmallLevelLoadJoinsTheDriversWorkInTheNextFrame) {
  // Frame 30 keeps a 32 KiB level (no heavy frame by itself), frame 31
  // allocates 3 MiB for it: one load, 30..31.
  FrameTable t = MakeTable({0, 80, 80}, 4096, {{30, 32 << 10}, {31, 3 << 20}});
  std::vector<Phase> phases = FindPhases(t);
  ASSERT_EQ(phases.size(), 4u);
  ExpectPhase(phases[2], PhaseKind::kLoad, 30, 31);
  EXPECT_EQ(phases[2].frame_before, 29u);
  EXPECT_EQ(phases[2].live_after - phases[2].live_before, (32u << 10) + (3u << 20));
}

TEST(Phases, ABusyFrameUnderTheFloorIsNoLoad) {
  // 200 KiB in one frame of a game that allocates 4 KiB a frame: a spike in
  // the frames report, not a load.
  FrameTable t = MakeTable({0, 50, 50}, 4096, {{30, 200 << 10}});
  std::vector<Phase> phases = FindPhases(t);
  ASSERT_EQ(phases.size(), 2u);
  ExpectPhase(phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(phases[1], PhaseKind::kSteady, 1, 49);
  EXPECT_EQ(LargestLoad(phases), nullptr);
}

TEST(Phases, ALargeHeapGrowingALittleIsNoLoad) {
  // A menu idling with 32 MiB live that keeps 300 KiB more in one frame (a
  // driver's buffer): above the growth floor, under a 16th of the heap.
  FrameTable t = MakeTable({0, 60, 60}, 5 << 20, {{0, 32 << 20}, {40, 300 << 10}});
  std::vector<Phase> phases = FindPhases(t);
  ASSERT_EQ(phases.size(), 2u);
  ExpectPhase(phases[1], PhaseKind::kSteady, 1, 59);
}

TEST(Phases, FrameNumbersNeedNotStartAtZero) {
  const uint64_t base = 1'000'000'000'000;
  FrameTable t = MakeTable({base, 40, 40}, 4096, {{0, 4 << 20}, {25, 4 << 20}});
  std::vector<Phase> phases = FindPhases(t);
  ASSERT_EQ(phases.size(), 4u);
  ExpectPhase(phases[0], PhaseKind::kStartup, base, base);
  ExpectPhase(phases[2], PhaseKind::kLoad, base + 25, base + 25);
  ExpectPhase(phases[3], PhaseKind::kSteady, base + 26, base + 39);
}

TEST(Phases, TooFewFramesToJudgeAreStartupThenSteady) {
  FrameTable t = MakeTable({0, 5, 5}, 4096, {{3, 8 << 20}});
  std::vector<Phase> phases = FindPhases(t);
  ASSERT_EQ(phases.size(), 2u);
  ExpectPhase(phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(phases[1], PhaseKind::kSteady, 1, 4);
  EXPECT_TRUE(FindPhases(FrameTable{}).empty());
}

TEST(Phases, JudgedFramesAreSteadyPlayWithinTheRangeAsked) {
  // Start-up 0-1, loads 40-41 and 80, teardown 100-101 (the first test's run).
  FrameTable t = MakeTable({0, 102, 100}, 10 << 10,
                           {{0, 8 << 20}, {1, 3 << 20}, {40, 5 << 20}, {41, 1 << 20}, {80, 2 << 20}});
  JudgedFrames steady = JudgeFrames(t, t.Complete(), false);
  EXPECT_TRUE(steady.steady_only);
  EXPECT_EQ(steady.ranges, (std::vector<FrameRange>{{2, 39}, {42, 79}, {81, 99}}));
  EXPECT_EQ(steady.count, 38u + 38 + 19);
  EXPECT_EQ(JudgedRangesText(steady), "2..39, 42..79, 81..99");
  EXPECT_EQ(JudgedRangesText(steady, 2), "2..39, 42..79, ... (3 stretches)");
  // Narrowed: the steady frames of 30..85 only.
  JudgedFrames some = JudgeFrames(t, {30, 85}, false);
  EXPECT_EQ(some.ranges, (std::vector<FrameRange>{{30, 39}, {42, 79}, {81, 85}}));
  EXPECT_EQ(some.count, 10u + 38 + 5);
  // Asked for all, or nothing steady in the range: every frame of it.
  JudgedFrames all = JudgeFrames(t, t.Complete(), true);
  EXPECT_FALSE(all.steady_only);
  EXPECT_TRUE(all.all_frames_asked);
  EXPECT_EQ(all.ranges, (std::vector<FrameRange>{{0, 99}}));
  EXPECT_EQ(all.count, 100u);
  JudgedFrames load = JudgeFrames(t, {40, 41}, false);
  EXPECT_FALSE(load.steady_only);
  EXPECT_FALSE(load.all_frames_asked);
  EXPECT_EQ(load.ranges, (std::vector<FrameRange>{{40, 41}}));

  EXPECT_TRUE(InRanges(steady.ranges, 2));
  EXPECT_TRUE(InRanges(steady.ranges, 79));
  EXPECT_FALSE(InRanges(steady.ranges, 80));
  EXPECT_FALSE(InRanges(steady.ranges, 1));
  EXPECT_FALSE(InRanges(steady.ranges, 100));
}

}  // namespace
}  // namespace memframe::analysis
