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

// Every frame allocates `steady` bytes in 10 blocks and frees them, but for
// the frames `heavy` names (frame index -> bytes kept live), which make
// `extra` more blocks (a burst of objects by default; 1 for one buffer).
FrameTable MakeTable(Shape shape, uint64_t steady, const std::vector<std::pair<uint64_t, uint64_t>>& heavy,
                     uint64_t extra = 1000) {
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
      f.allocations += extra;
      f.bytes_allocated += bytes;
      live += bytes;
    }
    f.live_bytes = live;
    f.ended = i < shape.ended;
    t.frames.push_back(f);
  }
  t.frames_rendered = shape.ended;
  t.last_complete_frame = shape.first_frame + shape.ended - 1;
  t.phases = DetectPhases(t, false);
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
  std::vector<Phase> phases = DetectPhases(t, false);
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
  std::vector<Phase> phases = DetectPhases(t, false);
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
  std::vector<Phase> phases = DetectPhases(t, false);
  ASSERT_EQ(phases.size(), 4u);
  ExpectPhase(phases[2], PhaseKind::kLoad, 30, 31);
  EXPECT_EQ(phases[2].frame_before, 29u);
  EXPECT_EQ(phases[2].live_after - phases[2].live_before, (32u << 10) + (3u << 20));
}

TEST(Phases, ABusyFrameUnderTheFloorIsNoLoad) {
  // 200 KiB in one frame of a game that allocates 4 KiB a frame: a spike in
  // the frames report, not a load.
  FrameTable t = MakeTable({0, 50, 50}, 4096, {{30, 200 << 10}}, 1);
  std::vector<Phase> phases = DetectPhases(t, false);
  ASSERT_EQ(phases.size(), 2u);
  ExpectPhase(phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(phases[1], PhaseKind::kSteady, 1, 49);
  EXPECT_EQ(LargestLoad(phases), nullptr);
}

TEST(Phases, ALargeHeapGrowingALittleIsNoLoad) {
  // A menu idling with 32 MiB live that keeps 300 KiB more in one frame (a
  // driver's buffer): above the growth floor, under a 16th of the heap.
  FrameTable t = MakeTable({0, 60, 60}, 5 << 20, {{0, 32 << 20}, {40, 300 << 10}}, 1);
  std::vector<Phase> phases = DetectPhases(t, false);
  ASSERT_EQ(phases.size(), 2u);
  ExpectPhase(phases[1], PhaseKind::kSteady, 1, 59);
}

TEST(Phases, FrameNumbersNeedNotStartAtZero) {
  const uint64_t base = 1'000'000'000'000;
  FrameTable t = MakeTable({base, 40, 40}, 4096, {{0, 4 << 20}, {25, 4 << 20}});
  std::vector<Phase> phases = DetectPhases(t, false);
  ASSERT_EQ(phases.size(), 4u);
  ExpectPhase(phases[0], PhaseKind::kStartup, base, base);
  ExpectPhase(phases[2], PhaseKind::kLoad, base + 25, base + 25);
  ExpectPhase(phases[3], PhaseKind::kSteady, base + 26, base + 39);
}

TEST(Phases, TooFewFramesToJudgeAreStartupThenSteady) {
  FrameTable t = MakeTable({0, 5, 5}, 4096, {{3, 8 << 20}});
  std::vector<Phase> phases = DetectPhases(t, false);
  ASSERT_EQ(phases.size(), 2u);
  ExpectPhase(phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(phases[1], PhaseKind::kSteady, 1, 4);
  EXPECT_TRUE(DetectPhases(FrameTable{}, false).empty());
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

// A frame table row by row: allocations, bytes allocated and the live heap
// at the end of each frame (bytes freed follow from them); every frame ends.
struct Row {
  uint64_t allocations = 0, bytes = 0, live = 0;
};

FrameTable TableOf(const std::vector<Row>& rows, bool attached = false) {
  FrameTable t;
  uint64_t live = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    FrameStats f;
    f.frame = i;
    f.allocations = rows[i].allocations;
    f.bytes_allocated = rows[i].bytes;
    f.bytes_freed = live + rows[i].bytes - rows[i].live;
    f.live_bytes = live = rows[i].live;
    f.ended = true;
    t.frames.push_back(f);
  }
  t.frames_rendered = rows.size();
  t.last_complete_frame = rows.size() - 1;
  t.attached = attached;
  t.phases = DetectPhases(t, attached);
  MarkPhaseSpikes(t, t.phases);
  return t;
}

// `count` frames of `allocations` a frame (+-10%, the same jitter each run)
// of 64 bytes each, freed in the frame, on a live heap of `live`.
void Plateau(std::vector<Row>& rows, size_t count, uint64_t allocations, uint64_t live) {
  for (size_t i = 0; i < count; ++i) {
    const uint64_t jitter = allocations * ((rows.size() * 37) % 21) / 100;  // 0..20%
    const uint64_t a = allocations - allocations / 10 + jitter;
    rows.push_back({a, a * 64, live});
  }
}

std::vector<uint64_t> Spikes(const FrameTable& t) {
  std::vector<uint64_t> spikes;
  for (const FrameStats& f : t.frames)
    if (f.spike) spikes.push_back(f.frame);
  return spikes;
}

TEST(Phases, ATransientThatKeepsNothingIsASpikeOfItsPhaseNotALoad) {
  // 256 KiB malloc'd and freed every 7th frame of a game that otherwise
  // allocates 4 KiB a frame: one steady phase, its spikes those frames.
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  for (uint64_t i = 1; i < 100; ++i) {
    const bool transient = i % 7 == 0;
    rows.push_back({10u + transient, (4u << 10) + (transient ? 256u << 10 : 0), 2u << 20});
  }
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 2u);
  ExpectPhase(t.phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 99);
  std::vector<uint64_t> expected;
  for (uint64_t i = 7; i < 100; i += 7) expected.push_back(i);
  EXPECT_EQ(Spikes(t), expected);
  EXPECT_EQ(t.phases[1].spikes, expected.size());
  EXPECT_EQ(LargestLoad(t.phases), nullptr);
}

TEST(Phases, PlateausOfDifferentRatesAreSeparateSteadyPhasesWithoutSpikes) {
  // Menu ~1,000 allocations a frame, world map ~2,000, a level ~150, with
  // 20% jitter and no load between them.
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  Plateau(rows, 100, 1000, 2 << 20);
  Plateau(rows, 120, 2000, 2 << 20);
  Plateau(rows, 90, 150, 2 << 20);
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 4u);
  ExpectPhase(t.phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 100);
  ExpectPhase(t.phases[2], PhaseKind::kSteady, 101, 220);
  ExpectPhase(t.phases[3], PhaseKind::kSteady, 221, 310);
  EXPECT_EQ(PhaseName(t.phases[3]), "steady 3");
  EXPECT_TRUE(Spikes(t).empty());
  // Each phase has its own baseline.
  EXPECT_NEAR(static_cast<double>(t.phases[2].allocation_spike.median), 2000, 200);
  EXPECT_NEAR(static_cast<double>(t.phases[3].allocation_spike.median), 150, 15);
}

// Neverball's level intro (~250 allocations a frame), its "ready, go" with
// frames at twice that, then play at ~1,400: the frames on the way into play
// (551 and 588, three frames and one before it) are judged against the play
// beside them and are no spikes; frames that stand out from all around them
// (715 in the intro, 701 between 269 and 272) still are.
TEST(Phases, FramesOnTheWayIntoTheNextSteadyPhaseAreNoSpikes) {
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  Plateau(rows, 40, 250, 2 << 20);
  rows[20] = {715, 715 * 64, 2 << 20};
  for (uint64_t a : {269, 701, 272, 233, 551, 243, 247, 588}) rows.push_back({a, a * 64, 2 << 20});
  Plateau(rows, 60, 1400, 2 << 20);
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 3u);
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 48);
  ExpectPhase(t.phases[2], PhaseKind::kSteady, 49, 108);
  EXPECT_EQ(Spikes(t), (std::vector<uint64_t>{20, 42}));
}

TEST(Phases, AJitterySlowRampIsOnePhase) {
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  for (uint64_t i = 1; i < 400; ++i) {
    const uint64_t a = 100 + i / 2 + (i % 2) * 60;  // 100 -> 300, alternating +60
    rows.push_back({a, a * 64, 2 << 20});
  }
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 2u);
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 399);
}

TEST(Phases, AnUnloadIsAPhaseOfItsOwn) {
  // Start-up, a level loaded at 50 (keeps 6 MiB), played, unloaded at 120
  // (frees 5 MiB), back to the menu.
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  Plateau(rows, 49, 100, 2 << 20);
  rows.push_back({3000, 6 << 20, 8 << 20});
  Plateau(rows, 69, 100, 8 << 20);
  rows.push_back({10, 1 << 10, 3 << 20});
  Plateau(rows, 60, 100, 3 << 20);
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 6u);
  ExpectPhase(t.phases[0], PhaseKind::kStartup, 0, 0);
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 49);
  ExpectPhase(t.phases[2], PhaseKind::kLoad, 50, 50);
  ExpectPhase(t.phases[3], PhaseKind::kSteady, 51, 119);
  ExpectPhase(t.phases[4], PhaseKind::kUnload, 120, 120);
  ExpectPhase(t.phases[5], PhaseKind::kSteady, 121, 180);
  EXPECT_EQ(PhaseName(t.phases[4]), "unload 1");
  EXPECT_EQ(PhaseName(t.phases[5]), "steady 3");
}

TEST(Phases, ASustainedRunOfHeavyFramesIsALoadEvenIfItKeepsNothing) {
  // Six frames that each stream 2 MiB through (decompressing a level) and
  // free it: a load; one frame that makes and drops a 2 MiB buffer is a
  // spike.
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  Plateau(rows, 49, 100, 2 << 20);
  for (int i = 0; i < 6; ++i) rows.push_back({2000, 2 << 20, 2 << 20});
  Plateau(rows, 50, 100, 2 << 20);
  rows.push_back({101, 2 << 20, 2 << 20});
  Plateau(rows, 40, 100, 2 << 20);
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 4u);
  ExpectPhase(t.phases[2], PhaseKind::kLoad, 50, 55);
  ExpectPhase(t.phases[3], PhaseKind::kSteady, 56, 146);
  EXPECT_EQ(Spikes(t), (std::vector<uint64_t>{106}));
}

TEST(Phases, ABurstOfObjectsIsALoadEvenInMemoryTheLastLevelFreed) {
  // A level loaded a second time: 3,000 allocations in one frame, 10 times
  // the frames around it, in memory the game had freed: a load. A frame of
  // 1,500 allocations among frames of 300 (5x) is a spike.
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  Plateau(rows, 49, 300, 2 << 20);
  rows.push_back({3000, 3 << 20, 2 << 20});
  Plateau(rows, 50, 300, 2 << 20);
  rows.push_back({1500, 300 * 64, 2 << 20});
  Plateau(rows, 40, 300, 2 << 20);
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 4u);
  ExpectPhase(t.phases[2], PhaseKind::kLoad, 50, 50);
  ExpectPhase(t.phases[3], PhaseKind::kSteady, 51, 141);
  EXPECT_EQ(Spikes(t), (std::vector<uint64_t>{101}));
}

TEST(Phases, ALevelStreamedInOverManyFramesIsALoad) {
  // 60 frames that allocate 5x the bytes of play and keep 100 KiB each.
  std::vector<Row> rows = {{5000, 4 << 20, 2 << 20}};
  Plateau(rows, 60, 100, 2 << 20);
  uint64_t live = 2 << 20;
  for (int i = 0; i < 60; ++i) rows.push_back({500, 500 * 64 + (100 << 10), live += 100 << 10});
  Plateau(rows, 60, 100, live);
  FrameTable t = TableOf(rows);
  ASSERT_EQ(t.phases.size(), 4u);
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 60);
  ExpectPhase(t.phases[2], PhaseKind::kLoad, 61, 120);
  ExpectPhase(t.phases[3], PhaseKind::kSteady, 121, 180);
}

TEST(Phases, AnAttachedCaptureStartsWithTheAttachNotStartUp) {
  std::vector<Row> rows = {{300, 20 << 10, 10 << 20}};
  Plateau(rows, 60, 300, 10 << 20);
  FrameTable t = TableOf(rows, true);
  ASSERT_EQ(t.phases.size(), 2u);
  ExpectPhase(t.phases[0], PhaseKind::kAttached, 0, 0);
  EXPECT_EQ(PhaseName(t.phases[0]), "attached");
  ExpectPhase(t.phases[1], PhaseKind::kSteady, 1, 60);
}

TEST(Phases, APhaseIsFoundByPositionOrName) {
  FrameTable t = MakeTable({0, 102, 100}, 10 << 10,
                           {{0, 8 << 20}, {1, 3 << 20}, {40, 5 << 20}, {41, 1 << 20}, {80, 2 << 20}});
  std::string error;
  ASSERT_NE(FindPhaseByName(t.phases, "3", &error), nullptr);
  EXPECT_EQ(FindPhaseByName(t.phases, "3", &error)->frames.from, 40u);
  EXPECT_EQ(FindPhaseByName(t.phases, "load 2", &error)->frames.from, 80u);
  EXPECT_EQ(FindPhaseByName(t.phases, "load-2", &error)->frames.from, 80u);
  EXPECT_EQ(FindPhaseByName(t.phases, "Steady2", &error)->frames.from, 42u);
  EXPECT_EQ(FindPhaseByName(t.phases, "steady", &error)->frames.from, 2u);
  EXPECT_EQ(FindPhaseByName(t.phases, "start-up", &error)->frames.from, 0u);
  EXPECT_EQ(FindPhaseByName(t.phases, "teardown", &error)->frames.from, 100u);
  EXPECT_EQ(FindPhaseByName(t.phases, "load 3", &error), nullptr);
  EXPECT_EQ(error,
            "no phase \"load 3\" in the capture (its phases: start-up, steady 1, load 1, steady 2, load 2, steady 3, "
            "teardown; or a position 1..7)");
  EXPECT_EQ(FindPhaseByName(t.phases, "0", &error), nullptr);
  EXPECT_EQ(FindPhaseByName(t.phases, "8", &error), nullptr);
}

}  // namespace
}  // namespace memframe::analysis
