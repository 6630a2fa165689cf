#include "timeline_columns.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace memframe::viewer {
namespace {

TimelineSeries Series(std::vector<uint64_t> values) {
  TimelineSeries s;
  s.value = values;
  s.time_ns.assign(values.size(), 0);
  s.spike.assign(values.size(), 0);
  return s;
}

TEST(AggregateColumns, OneFramePerPixel) {
  TimelineSeries s = Series({5, 7, 9});
  auto columns = AggregateColumns(s, {0, 1, 10});
  ASSERT_EQ(columns.size(), 3u);  // no columns past the last frame
  EXPECT_EQ(columns[1].x, 1);
  EXPECT_EQ(columns[1].first_frame, 1u);
  EXPECT_EQ(columns[1].last_frame, 1u);
  EXPECT_EQ(columns[1].max_value, 7u);
}

TEST(AggregateColumns, ZoomedOutKeepsTheLargestFrameAndSpikes) {
  TimelineSeries s = Series({1, 2, 30, 4, 5, 6, 7, 8, 9, 10});
  s.spike[2] = 1;
  s.time_ns[7] = 500;
  auto columns = AggregateColumns(s, {0, 2.5, 4});
  ASSERT_EQ(columns.size(), 4u);
  // Every frame lands in exactly one column.
  uint32_t next = 0;
  for (const auto& c : columns) {
    EXPECT_EQ(c.first_frame, next);
    next = c.last_frame + 1;
  }
  EXPECT_EQ(next, 10u);
  // Column 1 covers frames floor(2.5)..floor(5.0)-1 = 2..4.
  EXPECT_EQ(columns[0].max_value, 2u);
  EXPECT_FALSE(columns[0].spike);
  for (const auto& c : columns) {
    if (c.first_frame <= 2 && 2 <= c.last_frame) {
      EXPECT_TRUE(c.spike);
      EXPECT_EQ(c.peak_frame, 2u);
      EXPECT_EQ(c.max_value, 30u);
    }
    if (c.first_frame <= 7 && 7 <= c.last_frame) {
      EXPECT_EQ(c.max_time_ns, 500u);
    }
  }
}

TEST(AggregateColumns, TensOfThousandsOfFramesInAFewHundredPixels) {
  std::vector<uint64_t> values(50000, 3);
  values[31234] = 999;
  TimelineSeries s = Series(values);
  TimelineViewport view = FitAll(values.size(), 400, 1.0 / 40);
  auto columns = AggregateColumns(s, view);
  EXPECT_EQ(columns.size(), 400u);
  uint64_t covered = 0, peaks = 0;
  for (const auto& c : columns) {
    covered += c.last_frame - c.first_frame + 1;
    peaks += c.max_value == 999;
  }
  EXPECT_EQ(covered, 50000u);
  EXPECT_EQ(peaks, 1u);  // the one-frame spike is not averaged away
}

TEST(AggregateColumns, StartsMidSeries) {
  TimelineSeries s = Series({0, 1, 2, 3, 4, 5, 6, 7});
  auto columns = AggregateColumns(s, {4, 2, 10});
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[0].first_frame, 4u);
  EXPECT_EQ(columns[0].max_value, 5u);
  EXPECT_EQ(columns[1].max_value, 7u);
}

TEST(Viewport, ZoomKeepsTheFrameUnderTheMouse) {
  TimelineViewport view = FitAll(1000, 100, 1.0 / 40);
  EXPECT_DOUBLE_EQ(view.frames_per_pixel, 10);
  double before = view.FrameAt(30);
  TimelineViewport zoomed = ZoomAround(view, 30, 0.5, 1000, 1.0 / 40);
  EXPECT_DOUBLE_EQ(zoomed.frames_per_pixel, 5);
  EXPECT_DOUBLE_EQ(zoomed.FrameAt(30), before);
}

TEST(Viewport, ClampsZoomAndPan) {
  TimelineViewport view = FitAll(1000, 100, 1.0 / 40);
  // Zooming out past everything on screen stops at "everything".
  EXPECT_DOUBLE_EQ(ZoomAround(view, 50, 8, 1000, 1.0 / 40).frames_per_pixel, 10);
  // Zooming in stops at 40 pixels per frame.
  EXPECT_DOUBLE_EQ(ZoomAround(view, 50, 1e-6, 1000, 1.0 / 40).frames_per_pixel, 1.0 / 40);
  // Panning stops at both ends.
  view.frames_per_pixel = 1;
  view.first_frame = -50;
  EXPECT_DOUBLE_EQ(ClampViewport(view, 1000, 1.0 / 40).first_frame, 0);
  view.first_frame = 5000;
  EXPECT_DOUBLE_EQ(ClampViewport(view, 1000, 1.0 / 40).first_frame, 900);
}

// Unit-width bars 0..n-1 of the given whole-pixel heights (0 = no bar).
std::vector<BarRect> UnitBars(const std::vector<int>& heights) {
  std::vector<BarRect> bars;
  for (size_t x = 0; x < heights.size(); ++x)
    if (heights[x] > 0) bars.push_back({float(x), float(x + 1), 0, float(heights[x])});
  return bars;
}

// How many rectangles cover each unit pixel of a width x height grid.
std::vector<int> Coverage(const std::vector<BarRect>& rects, int width, int height) {
  std::vector<int> cover(static_cast<size_t>(width) * height, 0);
  for (const BarRect& r : rects)
    for (int x = static_cast<int>(r.x0); x < static_cast<int>(r.x1); ++x)
      for (int y = static_cast<int>(r.bottom); y < static_cast<int>(r.top); ++y) cover[y * width + x]++;
  return cover;
}

TEST(MergeBars, EqualNeighboursBecomeOneRectangle) {
  auto rects = MergeBars(UnitBars({5, 5, 5, 5}));
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_EQ(rects[0].x0, 0);
  EXPECT_EQ(rects[0].x1, 4);
  EXPECT_EQ(rects[0].bottom, 0);
  EXPECT_EQ(rects[0].top, 5);
}

TEST(MergeBars, SharedBaseIsOneWideRectangle) {
  // A peak on a plateau: the plateau's full width, then the peak above it.
  auto rects = MergeBars(UnitBars({3, 3, 9, 3}));
  ASSERT_EQ(rects.size(), 2u);
  EXPECT_EQ(rects[0].x0, 2);  // the peak closes first
  EXPECT_EQ(rects[0].bottom, 3);
  EXPECT_EQ(rects[0].top, 9);
  EXPECT_EQ(rects[1].x0, 0);
  EXPECT_EQ(rects[1].x1, 4);
  EXPECT_EQ(rects[1].top, 3);
}

TEST(MergeBars, GapsAreNotBridged) {
  auto rects = MergeBars(UnitBars({4, 0, 4}));
  ASSERT_EQ(rects.size(), 2u);
  EXPECT_EQ(rects[0].x1, 1);
  EXPECT_EQ(rects[1].x0, 2);
  // Bars that do not touch (zoomed in, one pixel apart) are not joined either.
  std::vector<BarRect> apart = {{0, 3, 0, 4}, {4, 7, 0, 4}};
  EXPECT_EQ(MergeBars(apart).size(), 2u);
}

TEST(MergeBars, CoversExactlyTheBarsPixelsOnce) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    const int width = 1 + static_cast<int>(random() % 60), height = 1 + static_cast<int>(random() % 20);
    std::vector<int> heights(width);
    for (int& h : heights) h = random() % 4 == 0 ? 0 : static_cast<int>(random() % (height + 1));
    std::vector<BarRect> bars = UnitBars(heights);
    std::vector<BarRect> rects = MergeBars(bars);
    EXPECT_LE(rects.size(), bars.size());
    std::vector<int> want = Coverage(bars, width, height), got = Coverage(rects, width, height);
    ASSERT_EQ(got, want) << "round " << round;
  }
}

// The time line and the allocation strip are scaled to steady play: the
// start-up frame (1000) would flatten it.
TEST(SteadyMax, TheLargestSteadyValueUnlessNoneIsSteady) {
  const std::vector<uint64_t> values = {1000, 5, 9, 7, 800, 6};
  const std::vector<uint8_t> steady = {0, 1, 1, 1, 0, 1};
  EXPECT_EQ(SteadyMax(values, steady, 0, values.size()), 9u);
  EXPECT_EQ(SteadyMax(values, steady, 3, 6), 7u);     // the frames on screen only
  EXPECT_EQ(SteadyMax(values, steady, 4, 5), 800u);   // inside a load: all of them
  EXPECT_EQ(SteadyMax(values, {}, 0, values.size()), 1000u);  // no phases: every frame
  EXPECT_EQ(SteadyMax(std::vector<uint64_t>{0, 0}, {}, 0, 2), 1u);
  EXPECT_EQ(SteadyMax(values, steady, 0, 100), 9u);   // past the end
}

}  // namespace
}  // namespace memframe::viewer
