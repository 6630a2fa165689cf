#include "timeline_columns.h"

#include <algorithm>
#include <cmath>

namespace memframe::viewer {

std::vector<TimelineColumn> AggregateColumns(const TimelineSeries& series, const TimelineViewport& view) {
  std::vector<TimelineColumn> columns;
  const double n = static_cast<double>(series.size());
  if (view.width <= 0 || view.frames_per_pixel <= 0 || n == 0) return columns;
  columns.reserve(static_cast<size_t>(view.width));
  for (int x = 0; x < view.width; ++x) {
    // Column x covers frames [floor(start), floor(end)); with the edges
    // taken from the same formula for every column, each frame lands in
    // exactly one column.
    double start = std::max(0.0, std::floor(view.FrameAt(x)));
    double end = std::min(n, std::floor(view.FrameAt(x + 1)));
    if (end <= start) continue;
    TimelineColumn c;
    c.x = x;
    c.first_frame = static_cast<uint32_t>(start);
    c.last_frame = static_cast<uint32_t>(end) - 1;
    c.peak_frame = c.first_frame;
    for (uint32_t f = c.first_frame; f <= c.last_frame; ++f) {
      if (series.value[f] > c.max_value) {
        c.max_value = series.value[f];
        c.peak_frame = f;
      }
      c.max_time_ns = std::max(c.max_time_ns, series.time_ns[f]);
      c.spike = c.spike || series.spike[f];
    }
    columns.push_back(c);
  }
  return columns;
}

uint64_t SteadyMax(std::span<const uint64_t> values, std::span<const uint8_t> steady, size_t first, size_t last) {
  last = std::min(last, values.size());
  uint64_t all = 1, in_play = 0;
  bool any_steady = false;
  for (size_t i = first; i < last; ++i) {
    all = std::max(all, values[i]);
    if (i < steady.size() && !steady[i]) continue;
    any_steady = true;
    in_play = std::max(in_play, values[i]);
  }
  return any_steady ? std::max<uint64_t>(in_play, 1) : all;
}

std::vector<BarRect> MergeBars(std::span<const BarRect> bars) {
  std::vector<BarRect> out;
  // Open rectangles, heights strictly increasing from the bottom of the stack.
  struct Open {
    float x0, top;
  };
  std::vector<Open> open;
  // Every bar from x on has height `top`: close what is taller, open what is new.
  auto step_to = [&](float x, float top) {
    float start = x;
    while (!open.empty() && open.back().top > top) {
      Open o = open.back();
      open.pop_back();
      float bottom = std::max(top, open.empty() ? 0.0f : open.back().top);
      if (x > o.x0) out.push_back({o.x0, x, bottom, o.top});
      start = o.x0;
    }
    if (top > 0 && (open.empty() || open.back().top < top)) open.push_back({start, top});
  };
  float end = 0;
  for (const BarRect& b : bars) {
    if (b.x1 <= b.x0) continue;
    if (!open.empty() && b.x0 > end) step_to(end, 0);  // a gap between bars
    step_to(b.x0, b.top);
    end = b.x1;
  }
  step_to(end, 0);
  return out;
}

TimelineViewport ClampViewport(TimelineViewport view, size_t frame_count, double min_frames_per_pixel) {
  if (view.width <= 0) return view;
  double n = static_cast<double>(std::max<size_t>(frame_count, 1));
  double max_fpp = std::max(min_frames_per_pixel, n / view.width);
  view.frames_per_pixel = std::clamp(view.frames_per_pixel, min_frames_per_pixel, max_fpp);
  double visible = view.frames_per_pixel * view.width;
  view.first_frame = std::clamp(view.first_frame, 0.0, std::max(0.0, n - visible));
  return view;
}

TimelineViewport ZoomAround(TimelineViewport view, double anchor_x, double factor, size_t frame_count,
                            double min_frames_per_pixel) {
  double anchor_frame = view.FrameAt(anchor_x);
  view.frames_per_pixel *= factor;
  view = ClampViewport(view, frame_count, min_frames_per_pixel);
  view.first_frame = anchor_frame - anchor_x * view.frames_per_pixel;
  return ClampViewport(view, frame_count, min_frames_per_pixel);
}

TimelineViewport FitAll(size_t frame_count, int width, double min_frames_per_pixel) {
  TimelineViewport view;
  view.width = width;
  view.frames_per_pixel = width > 0 ? static_cast<double>(frame_count) / width : 1;
  return ClampViewport(view, frame_count, min_frames_per_pixel);
}

}  // namespace memframe::viewer
