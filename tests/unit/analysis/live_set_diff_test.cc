// LiveSetAt / ResolveCut / DiffLiveSets on hand-built streams: the diff
// report's numbers, exactly.
#include "memframe/analysis/live_set_diff.h"

#include <gtest/gtest.h>

#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/live_set_at.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::Marker;
using testing::ToEvent;

// Frame 0: stack 1 allocates A (100 B). Frame 1: marker "level_load_begin",
// A is freed, stack 2 allocates B (200 B) and C (50 B), marker
// "level_load_end". Frame 2: B is freed. Frame 3: stack 1 allocates D (30 B).
Stream LevelStream() {
  Stream s;
  s.markers[7] = "level_load_begin";
  s.markers[8] = "level_load_end";
  s.events = {ToEvent(Alloc(1, 0, 0xA0, 100, 1)), ToEvent(FrameEnd(2, 0)),
              ToEvent(Marker(3, 1, 7)),                    ToEvent(Free(4, 1, 0xA0)),
              ToEvent(Alloc(5, 1, 0xB0, 200, 2)), ToEvent(Alloc(6, 1, 0xC0, 50, 2)),
              ToEvent(Marker(7, 1, 8)),                    ToEvent(FrameEnd(8, 1)),
              ToEvent(Free(9, 2, 0xB0)),          ToEvent(FrameEnd(10, 2)),
              ToEvent(Alloc(11, 3, 0xD0, 30, 1))};
  return s;
}

TEST(LiveSetAt, EndOfFrameAppliesEveryEventOfThatFrameAndBefore) {
  Stream s = LevelStream();
  EXPECT_EQ(LiveSetAtFrame(s, 0).live_bytes(), 100u);
  EXPECT_EQ(LiveSetAtFrame(s, 1).live_bytes(), 250u);
  EXPECT_EQ(LiveSetAtFrame(s, 2).live_bytes(), 50u);
  EXPECT_EQ(LiveSetAtFrame(s, 3).live_bytes(), 80u);
  EXPECT_EQ(LiveSetAtFrame(s, 3).live_blocks(), 2u);
}

TEST(LiveSetAt, ALaterFrameFromAnotherThreadDoesNotLeakIntoTheCut) {
  // Thread 1 already counts frame 1 while thread 0 still frees in frame 0.
  Stream s;
  s.events = {ToEvent(Alloc(1, 0, 0xA0, 100, 1)), ToEvent(Alloc(2, 1, 0xE0, 999, 3), 1),
              ToEvent(Free(3, 0, 0xA0)), ToEvent(FrameEnd(4, 0))};
  EXPECT_EQ(LiveSetAtFrame(s, 0).live_bytes(), 0u);
  EXPECT_EQ(LiveSetAtFrame(s, 1).live_bytes(), 999u);
}

TEST(LiveSetAt, CutsByNameStartAndEnd) {
  Stream s = LevelStream();
  const FrameTable frames = AnalyzeHeap(s).frames;
  std::string error;
  auto begin = ResolveCut(s, "level_load_begin", frames, &error);
  ASSERT_TRUE(begin) << error;
  EXPECT_EQ(begin->kind, LiveSetCut::Kind::kMarker);
  EXPECT_EQ(begin->frame, 1u);
  EXPECT_EQ(LiveSetAt(s, *begin).live_bytes(), 100u);  // before the marker: A only
  auto end_marker = ResolveCut(s, "level_load_end", frames, &error);
  ASSERT_TRUE(end_marker);
  EXPECT_EQ(LiveSetAt(s, *end_marker).live_bytes(), 250u);
  EXPECT_EQ(LiveSetAt(s, *ResolveCut(s, "start", frames, &error)).live_blocks(), 0u);
  EXPECT_EQ(LiveSetAt(s, *ResolveCut(s, "end", frames, &error)).live_bytes(), 80u);
}

TEST(LiveSetAt, UnknownCutsAreErrors) {
  Stream s = LevelStream();
  const FrameTable frames = AnalyzeHeap(s).frames;
  std::string error;
  EXPECT_FALSE(ResolveCut(s, "4", frames, &error));
  EXPECT_EQ(error, "frame 4 is not in the capture (frames 0..3)");
  EXPECT_FALSE(ResolveCut(s, "boss_fight", frames, &error));
  EXPECT_EQ(error, "'boss_fight' is neither a frame number, 'start', 'end' nor the name of a marker in the capture");
}

TEST(LiveSetDiff, GroupsByStackAndClassifiesTheChange) {
  Stream s = LevelStream();
  LiveSetDiff d = DiffLiveSets(LiveSetAtFrame(s, 0), LiveSetAtFrame(s, 1));
  EXPECT_EQ(d.blocks_a, 1u);
  EXPECT_EQ(d.bytes_a, 100u);
  EXPECT_EQ(d.blocks_b, 2u);
  EXPECT_EQ(d.bytes_b, 250u);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].stack_id, 2u);
  EXPECT_EQ(d.rows[0].change, LiveSetDiffRow::Change::kNew);
  EXPECT_EQ(d.rows[0].delta_bytes(), 250);
  EXPECT_EQ(d.rows[0].delta_blocks(), 2);
  EXPECT_EQ(d.rows[1].stack_id, 1u);
  EXPECT_EQ(d.rows[1].change, LiveSetDiffRow::Change::kGone);
  EXPECT_EQ(d.rows[1].delta_bytes(), -100);

  LiveSetDiff later = DiffLiveSets(LiveSetAtFrame(s, 1), LiveSetAtFrame(s, 3));
  ASSERT_EQ(later.rows.size(), 2u);
  EXPECT_EQ(later.rows[0].stack_id, 2u);
  EXPECT_EQ(later.rows[0].change, LiveSetDiffRow::Change::kShrank);
  EXPECT_EQ(later.rows[0].delta_bytes(), -200);
  EXPECT_EQ(later.rows[1].change, LiveSetDiffRow::Change::kNew);
  EXPECT_EQ(later.rows[1].bytes_b, 30u);
}

TEST(LiveSetDiff, UnchangedStacksAreLeftOut) {
  Stream s = LevelStream();
  EXPECT_TRUE(DiffLiveSets(LiveSetAtFrame(s, 3), LiveSetAtFrame(s, 3)).rows.empty());
}

}  // namespace
}  // namespace memframe::analysis
