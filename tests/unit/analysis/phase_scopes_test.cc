// Which steady phases are judged one by one, and the one a view opens on
// (phase_scopes.h).
#include "memframe/analysis/phase_scopes.h"

#include <gtest/gtest.h>

namespace memframe::analysis {
namespace {

Phase MakePhase(PhaseKind kind, uint32_t ordinal, uint64_t from, uint64_t to) {
  Phase p;
  p.kind = kind;
  p.ordinal = ordinal;
  p.frames = {from, to};
  return p;
}

// A menu of 20 frames, a load, a map of 30, a load, 5 frames of intro, a
// level of 30 (as long as the map), the teardown. Frame numbers 50..54 are
// missing: phases count frames, not numbers.
FrameTable GameInParts() {
  FrameTable t;
  for (uint64_t f = 0; f <= 100; ++f)
    if (f < 50 || f > 54) t.frames.push_back({.frame = f});
  t.phases = {MakePhase(PhaseKind::kStartup, 1, 0, 0),   MakePhase(PhaseKind::kSteady, 1, 1, 20),
              MakePhase(PhaseKind::kLoad, 1, 21, 21),    MakePhase(PhaseKind::kSteady, 2, 22, 51),
              MakePhase(PhaseKind::kLoad, 2, 52, 61),    MakePhase(PhaseKind::kSteady, 3, 62, 66),
              MakePhase(PhaseKind::kSteady, 4, 67, 96),  MakePhase(PhaseKind::kTeardown, 1, 97, 100)};
  return t;
}

TEST(PhaseScopes, ShortSteadyPhasesAreLeftOut) {
  const FrameTable t = GameInParts();
  const std::vector<const Phase*> judged = JudgedPhases(t);
  ASSERT_EQ(judged.size(), 3u);
  EXPECT_EQ(PhaseName(*judged[0]), "steady 1");
  EXPECT_EQ(PhaseName(*judged[1]), "steady 2");
  EXPECT_EQ(PhaseName(*judged[2]), "steady 4");  // steady 3 has 5 frames
}

TEST(PhaseScopes, ViewsOpenOnTheLongestCountingFramesNotNumbers) {
  FrameTable t = GameInParts();
  // steady 2 spans 30 numbers but holds 28 frames (50 and 51 are
  // missing); steady 4 holds 30.
  ASSERT_EQ(t.CountIn({22, 51}), 28u);
  EXPECT_EQ(PhaseName(*LongestJudgedPhase(t)), "steady 4");
  // As long as the longest: the earlier one.
  t.phases[1].frames = {1, 20};
  t.phases[6].frames = {67, 86};
  t.phases[3].frames = {22, 41};
  EXPECT_EQ(PhaseName(*LongestJudgedPhase(t)), "steady 1");
  t.phases = {MakePhase(PhaseKind::kStartup, 1, 0, 0), MakePhase(PhaseKind::kSteady, 1, 1, 5)};
  EXPECT_EQ(LongestJudgedPhase(t), nullptr);
}

TEST(PhaseScopes, ARangeIsAPhaseOnlyWhenItIsAllOfIt) {
  const FrameTable t = GameInParts();
  ASSERT_NE(PhaseOfRange(t, {52, 61}), nullptr);
  EXPECT_EQ(PhaseName(*PhaseOfRange(t, {52, 61})), "load 2");
  EXPECT_EQ(PhaseOfRange(t, {52, 60}), nullptr);
  EXPECT_EQ(PhaseOfRange(t, {51, 61}), nullptr);
}

}  // namespace
}  // namespace memframe::analysis
