// The frame timeline as pixel columns. Zoomed out, tens of thousands of
// frames share a few hundred pixels: each column shows the largest frame it
// covers (so a one-frame spike never disappears into an average) and is a
// spike if any of its frames is.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace memframe::viewer {

struct TimelineSeries {
  std::vector<uint64_t> value;    // per frame: allocations or bytes
  std::vector<uint64_t> time_ns;  // per frame: time inside the allocator
  std::vector<uint8_t> spike;     // per frame: 1 = spike
  // Per frame: its number (frame numbers may start anywhere and have gaps;
  // the timeline's x is the position in the series). Empty = the position.
  std::vector<uint64_t> frame;
  // Per frame: 1 = in steady play (phases.h: not start-up, a load or any
  // other phase). Empty = every frame.
  std::vector<uint8_t> steady;
  size_t size() const { return value.size(); }
};

// The scale of a per-frame figure that start-up and loads would flatten
// (the allocator's time, what a frame allocated): the largest of
// values[first, last) over the steady frames among them, or over all of
// them when none is steady (a capture, or a zoom, inside a load). Larger
// values go off the top of the scale, marked where they are drawn. Chosen
// over a robust maximum (a percentile) because a percentile also cuts the
// one hitch in play that the line is there to show. At least 1.
uint64_t SteadyMax(std::span<const uint64_t> values, std::span<const uint8_t> steady, size_t first, size_t last);

struct TimelineColumn {
  int x = 0;                 // pixel column, 0 = left edge of the plot
  uint32_t first_frame = 0;  // frames first_frame..last_frame fall in this column
  uint32_t last_frame = 0;
  uint32_t peak_frame = 0;   // the frame with the largest value (the one a tooltip names)
  uint64_t max_value = 0;
  uint64_t max_time_ns = 0;
  bool spike = false;
};

// The horizontal mapping of the timeline: frame = first_frame + x * frames_per_pixel.
struct TimelineViewport {
  double first_frame = 0;
  double frames_per_pixel = 1;
  int width = 0;  // pixels

  double FrameAt(double x) const { return first_frame + x * frames_per_pixel; }
  double XOf(double frame) const { return (frame - first_frame) / frames_per_pixel; }
};

// One column per pixel that covers at least one existing frame. Only valid
// when frames_per_pixel >= 1 (zoomed in, the view draws frames directly).
std::vector<TimelineColumn> AggregateColumns(const TimelineSeries& series, const TimelineViewport& view);

// A bar chart as rectangles that cover exactly the bars' pixels, each as
// wide as the bars under it allow (the skyline decomposition): one wide quad
// for what neighbouring bars share instead of one thin quad per pixel column.
// A rasteriser fills far fewer partly covered blocks (llvmpipe's cost), and
// there are never more rectangles than bars. Input: bars in x order, not
// overlapping, from 0 up to `top` (`bottom` ignored); where bars do not touch
// the height is 0. Output rectangles go from `bottom` up to `top`.
struct BarRect {
  float x0 = 0, x1 = 0;
  float bottom = 0, top = 0;
};
std::vector<BarRect> MergeBars(std::span<const BarRect> bars);

// Zooms by `factor` (< 1 zooms in) keeping the frame under pixel `anchor_x`
// in place, then clamps to [min_frames_per_pixel, whole series on screen].
TimelineViewport ZoomAround(TimelineViewport view, double anchor_x, double factor, size_t frame_count,
                            double min_frames_per_pixel);

// Keeps the visible window inside the series (no scrolling into emptiness).
TimelineViewport ClampViewport(TimelineViewport view, size_t frame_count, double min_frames_per_pixel);

// The whole series on screen.
TimelineViewport FitAll(size_t frame_count, int width, double min_frames_per_pixel);

}  // namespace memframe::viewer
