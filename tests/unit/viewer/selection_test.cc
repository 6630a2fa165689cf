#include "selection.h"

#include <gtest/gtest.h>

namespace memframe::viewer {
namespace {

// Frames 0..99 ended; frame 100 is the one after the last present.
analysis::FrameTable HundredFramesAndTheRest() {
  analysis::FrameTable t;
  for (uint64_t f = 0; f <= 100; ++f) t.frames.push_back({.frame = f});
  t.frames_rendered = 100;
  t.last_complete_frame = 99;
  return t;
}

TEST(Selection, CountsFramesAsTheHeaderDoes) {
  analysis::FrameTable t = HundredFramesAndTheRest();
  Selection s;
  EXPECT_EQ(s.Describe(t), "All frames 0\u2013100 (100 rendered + frame 100 after the last present)");
  s.SelectRangeA({10, 19});
  EXPECT_EQ(s.Describe(t), "Range A: frames 10\u201319 (10 frames)");
  s.SelectFrame(100);
  EXPECT_EQ(s.Describe(t), "Frame 100 (after the last present)");
  s.SelectFrame(7);
  EXPECT_EQ(s.Describe(t), "Frame 7");
  // Gaps in the numbers: frames are counted, not numbers.
  t.frames.erase(t.frames.begin() + 20, t.frames.begin() + 30);
  s.SelectRangeB({0, 99});
  EXPECT_EQ(s.Describe(t), "Range B: frames 0\u201399 (90 frames)");
}

TEST(Selection, FocusFollowsTheLastPick) {
  Selection s;
  analysis::FrameRange all{0, 99};
  EXPECT_EQ(s.FocusRange(all).size(), 100u);
  s.SelectRangeA({10, 19});
  EXPECT_EQ(s.FocusRange(all).from, 10u);
  s.SelectFrame(42);
  EXPECT_EQ(s.FocusRange(all).from, 42u);
  EXPECT_EQ(s.FocusRange(all).to, 42u);
  EXPECT_TRUE(s.range_a);  // a frame click keeps range A for a comparison
  s.SelectRangeB({200, 300});
  EXPECT_EQ(s.FocusRange(all).from, 99u);  // clipped to the capture
  analysis::FrameTable t;
  for (uint64_t f = 0; f < 100; ++f) t.frames.push_back({.frame = f});
  t.frames_rendered = 100;
  t.last_complete_frame = 99;
  EXPECT_EQ(s.Describe(t), "Range B: frame 99");
}

// --range, a drag or a phase button sets the range the judging views take
// (Hidden, Lifetimes, Threads, Leaks); a frame click moves the detail, not it.
TEST(Selection, TheRangePickedLastIsTheOneTheViewsJudge) {
  analysis::FrameTable t = HundredFramesAndTheRest();
  const analysis::FrameRange all = t.All();
  Selection s;
  EXPECT_FALSE(s.has_picked_range());
  EXPECT_EQ(s.PickedRange(all), all);
  ViewerOptions options;
  options.range = analysis::FrameRange{10, 19};
  s.Apply(options, t);
  EXPECT_EQ(s.PickedRange(all), (analysis::FrameRange{10, 19}));
  s.SelectFrame(42);
  EXPECT_EQ(s.FocusRange(all), (analysis::FrameRange{42, 42}));
  EXPECT_EQ(s.PickedRange(all), (analysis::FrameRange{10, 19}));
  EXPECT_EQ(s.DescribePicked(t), "Range A: frames 10\u201319 (10 frames)");
  // A phase: B is its frames (what the views take), A the frame before it
  // (the diff compares the end of A with the end of B).
  s.SelectPhase({30, 31}, 29);
  EXPECT_EQ(s.range_a, (analysis::FrameRange{29, 29}));
  EXPECT_EQ(s.range_b, (analysis::FrameRange{30, 31}));
  EXPECT_EQ(s.PickedRange(all), (analysis::FrameRange{30, 31}));
  EXPECT_EQ(s.FocusRange(all), (analysis::FrameRange{30, 31}));
  s.Clear();
  EXPECT_FALSE(s.has_picked_range());
  EXPECT_EQ(s.DescribePicked(t), "All frames 0\u2013100 (100 rendered + frame 100 after the last present)");
}

}  // namespace
}  // namespace memframe::viewer
