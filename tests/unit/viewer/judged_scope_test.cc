// What Hidden and Lifetimes judge (judged_scope.h): one steady phase, the
// longest, when nothing is picked; the range picked, named when it is a
// phase; the whole capture only when asked.
#include "judged_scope.h"

#include <gtest/gtest.h>

#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/size_histogram.h"

namespace memframe::viewer {
namespace {

analysis::Phase MakePhase(analysis::PhaseKind kind, uint32_t ordinal, uint64_t from, uint64_t to) {
  analysis::Phase p;
  p.kind = kind;
  p.ordinal = ordinal;
  p.frames = {from, to};
  p.frame_before = from ? from - 1 : 0;
  return p;
}

// Frames 0..60 (60 is the teardown): start-up, a menu of 20 frames, a load,
// a level of 38, the teardown.
std::unique_ptr<Session> GameInParts() {
  analysis::Capture capture;
  capture.has_main = true;
  analysis::HeapAnalysis heap = analysis::AnalyzeHeap(capture.main);
  for (uint64_t f = 0; f <= 60; ++f) heap.frames.frames.push_back({.frame = f});
  heap.frames.frames_rendered = 60;
  heap.frames.last_complete_frame = 59;
  using analysis::PhaseKind;
  heap.frames.phases = {MakePhase(PhaseKind::kStartup, 1, 0, 0), MakePhase(PhaseKind::kSteady, 1, 1, 20),
                        MakePhase(PhaseKind::kLoad, 1, 21, 21), MakePhase(PhaseKind::kSteady, 2, 22, 59),
                        MakePhase(PhaseKind::kTeardown, 1, 60, 60)};
  auto sizes = analysis::SizeHistogramIndex::Build(capture.main);
  auto symbolizer = std::make_unique<analysis::Symbolizer>(capture.main.modules);
  return std::make_unique<Session>(std::move(capture), std::move(heap), std::move(sizes), std::move(symbolizer));
}

TEST(JudgedScope, NothingPickedIsTheLongestSteadyPhaseNeverThePool) {
  auto session = GameInParts();
  Selection selection;
  JudgedScope scope = JudgedScopeOf(*session, selection, session->CompleteFrames());
  EXPECT_EQ(scope.source, JudgedScope::Source::kLongestPhase);
  ASSERT_NE(scope.phase, nullptr);
  EXPECT_EQ(analysis::PhaseName(*scope.phase), "steady 2");
  EXPECT_EQ(scope.range, (analysis::FrameRange{22, 59}));
  EXPECT_EQ(scope.judged.count, 38u);
  EXPECT_TRUE(scope.judged.steady_only);
  EXPECT_EQ(JudgedScopeJson(scope), (nlohmann::json{{"source", "longest steady phase"}, {"phase", "steady 2"}}));
}

TEST(JudgedScope, APickedRangeIsNamedWhenItIsAPhase) {
  auto session = GameInParts();
  Selection selection;
  selection.SelectPhase(session->frames().phases[1]);  // the picker or the menu's timeline button
  JudgedScope scope = JudgedScopeOf(*session, selection, session->CompleteFrames());
  EXPECT_EQ(scope.source, JudgedScope::Source::kRangePicked);
  ASSERT_NE(scope.phase, nullptr);
  EXPECT_EQ(analysis::PhaseName(*scope.phase), "steady 1");
  EXPECT_EQ(scope.judged.count, 20u);
  EXPECT_EQ(selection.range_a, (analysis::FrameRange{0, 0}));  // the diff: what the menu's frames left
  // A drag across the load: no phase, its steady frames judged.
  selection.SelectRangeA({15, 30});
  scope = JudgedScopeOf(*session, selection, session->CompleteFrames());
  EXPECT_EQ(scope.phase, nullptr);
  ASSERT_EQ(scope.judged.ranges.size(), 2u);
  EXPECT_EQ(scope.judged.count, 6u + 9u);
}

TEST(JudgedScope, TheWholeCaptureOnlyWhenAsked) {
  auto session = GameInParts();
  Selection selection;
  selection.SelectPhase(session->frames().phases[1]);
  selection.JudgeWholeCapture();  // the picker's last entry
  JudgedScope scope = JudgedScopeOf(*session, selection, session->CompleteFrames());
  EXPECT_EQ(scope.source, JudgedScope::Source::kWholeCapture);
  EXPECT_EQ(scope.phase, nullptr);
  EXPECT_EQ(scope.range, (analysis::FrameRange{0, 59}));
  EXPECT_EQ(scope.judged.count, 20u + 38u);  // every steady phase, pooled
  EXPECT_TRUE(selection.range_b);            // still drawn, for the diff
  // A new pick, or clearing the picks, ends it.
  selection.Clear();
  EXPECT_EQ(JudgedScopeOf(*session, selection, session->CompleteFrames()).source, JudgedScope::Source::kLongestPhase);
  // "All frames" with nothing picked: every frame at once, as --all-frames.
  session->SetJudgeAllFrames(true);
  scope = JudgedScopeOf(*session, selection, session->AllFrames());
  EXPECT_EQ(scope.source, JudgedScope::Source::kWholeCapture);
  EXPECT_EQ(scope.judged.count, 61u);
  EXPECT_FALSE(scope.judged.steady_only);
}

}  // namespace
}  // namespace memframe::viewer
