#include "views/timeline_draw.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "axis_ticks.h"
#include "format.h"
#include "style.h"

namespace memframe::viewer {

namespace {

constexpr float kLeftAxis = 70, kRightAxis = 64, kBottomAxis = 20, kTop = 8;

// The bars' value scale. Log by default: the start-up frame of a game
// allocates thousands of times what a gameplay frame does, and a linear
// scale would flatten every gameplay frame to nothing.
struct ValueScale {
  double max = 1;
  bool log = true;
  double Of(double v) const { return log ? std::log10(1 + v) / std::log10(1 + max) : v / max; }
};

// A round frame step whose labels stay at least `min_px` apart.
uint64_t FrameStep(double frames_per_pixel, float min_px) {
  double want = frames_per_pixel * min_px;
  uint64_t step = 1;
  while (true) {
    for (uint64_t m : {1, 2, 5}) {
      if (static_cast<double>(step * m) >= want) return step * m;
    }
    step *= 10;
  }
}

void DrawValueAxis(ImDrawList* draw, const PlotRect& p, const ValueScale& scale, bool bytes) {
  // Round values of the unit the labels use (axis_ticks.h): binary steps for bytes.
  for (const AxisTick& t : scale.log ? LogTicks(scale.max, bytes) : LinearTicks(scale.max, bytes)) {
    float y = p.max.y - p.height() * static_cast<float>(scale.Of(t.value));
    draw->AddLine(ImVec2(p.min.x, y), ImVec2(p.max.x, y), palette::kGrid);
    ImVec2 size = ImGui::CalcTextSize(t.label.c_str());
    draw->AddText(ImVec2(p.min.x - size.x - 6, y - size.y / 2), palette::kAxisText, t.label.c_str());
  }
}

void DrawFrameAxis(ImDrawList* draw, const PlotRect& p, const TimelineViewport& view, const TimelineSeries& series) {
  const size_t frames = series.size();
  // Labels at least 80 px apart, more when the numbers are long (a capture
  // whose frames are counted past 10^12).
  std::string widest = std::to_string(series.frame.empty() ? frames : series.frame.back());
  uint64_t step = FrameStep(view.frames_per_pixel, std::max(80.0f, ImGui::CalcTextSize(widest.c_str()).x + 16));
  double first = std::max(0.0, view.first_frame);
  double last = std::min(static_cast<double>(frames), view.FrameAt(p.width()));
  for (uint64_t f = static_cast<uint64_t>(std::ceil(first / step)) * step; f < last; f += step) {
    // Ticks point at a frame's centre when a frame is wider than a pixel.
    float x = p.min.x + static_cast<float>(view.XOf(f + 0.5));
    draw->AddLine(ImVec2(x, p.max.y), ImVec2(x, p.max.y + 4), palette::kAxisText);
    std::string label = std::to_string(f < series.frame.size() ? series.frame[f] : f);
    float w = ImGui::CalcTextSize(label.c_str()).x;
    draw->AddText(ImVec2(x - w / 2, p.max.y + 4), palette::kAxisText, label.c_str());
  }
}

void DrawRange(ImDrawList* draw, const PlotRect& p, const TimelineViewport& view, analysis::FrameRange r, ImU32 colour,
               const char* tag) {
  float x0 = p.min.x + static_cast<float>(view.XOf(r.from));
  float x1 = p.min.x + static_cast<float>(view.XOf(r.to + 1.0));
  if (x1 < p.min.x || x0 > p.max.x) return;
  x0 = std::max(x0, p.min.x);
  x1 = std::min(std::max(x1, x0 + 1), p.max.x);
  draw->AddRectFilled(ImVec2(x0, p.min.y), ImVec2(x1, p.max.y), palette::WithAlpha(colour, 45));
  draw->AddLine(ImVec2(x0, p.min.y), ImVec2(x0, p.max.y), colour, 1.5f);
  draw->AddLine(ImVec2(x1, p.min.y), ImVec2(x1, p.max.y), colour, 1.5f);
  draw->AddRectFilled(ImVec2(x0, p.min.y), ImVec2(x0 + 16, p.min.y + 17), colour);
  draw->AddText(ImVec2(x0 + 4, p.min.y + 1), IM_COL32(20, 20, 24, 255), tag);
}

}  // namespace

PlotRect PlotRectIn(ImVec2 canvas_min, ImVec2 canvas_max) {
  return {ImVec2(canvas_min.x + kLeftAxis, canvas_min.y + kTop),
          ImVec2(canvas_max.x - kRightAxis, canvas_max.y - kBottomAxis)};
}

namespace {

// The bars on screen, as columns (zoomed out) or as frames (zoomed in),
// merged into rectangles, and the time line's points.
void BuildGeometry(const PlotRect& p, const TimelineSeries& series, const TimelineViewport& view,
                   const TimelineLook& look, TimelineGeometry::Parts* g) {
  struct Bar {
    float x0, x1;
    uint64_t value, time_ns;
    bool spike;
  };
  std::vector<Bar> bars;
  const size_t n = series.size();
  if (view.frames_per_pixel >= 1) {
    for (const TimelineColumn& c : AggregateColumns(series, view))
      bars.push_back({static_cast<float>(c.x), static_cast<float>(c.x + 1), c.max_value, c.max_time_ns, c.spike});
  } else {
    const double px_per_frame = 1 / view.frames_per_pixel;
    const float gap = px_per_frame > 4 ? 1.0f : 0.0f;  // separate bars once they are wide enough to see
    size_t first = static_cast<size_t>(std::max(0.0, std::floor(view.first_frame)));
    size_t last = std::min(n, static_cast<size_t>(std::ceil(view.FrameAt(p.width()))) + 1);
    for (size_t f = first; f < last; ++f) {
      float x0 = static_cast<float>(view.XOf(static_cast<double>(f)));
      float x1 = static_cast<float>(view.XOf(f + 1.0)) - gap;
      bars.push_back({std::max(x0, 0.0f), std::min(x1, p.width()), series.value[f], series.time_ns[f], series.spike[f] != 0});
    }
  }
  ValueScale scale{1, look.log_scale};
  for (const Bar& b : bars) scale.max = std::max<double>(scale.max, static_cast<double>(b.value));
  // The time line's scale: the steady frames on screen (SteadyMax). Frame 0
  // spends milliseconds in the allocator where a frame of play spends
  // microseconds: scaled to it, play is a flat line at the bottom.
  const size_t first_row = static_cast<size_t>(std::max(0.0, std::floor(view.first_frame)));
  const size_t end_row = std::min(n, static_cast<size_t>(std::max(0.0, std::ceil(view.FrameAt(p.width())))) + 1);
  const uint64_t max_time = SteadyMax(series.time_ns, series.steady, first_row, end_row);
  // Whole pixels: neighbours of nearly equal value share one rectangle.
  // Spikes get their own colour, so each colour is merged on its own.
  std::vector<BarRect> normal, spikes;
  for (const Bar& b : bars) {
    if (b.value == 0 || b.x1 <= b.x0) continue;
    float h = std::max(1.0f, std::round(p.height() * static_cast<float>(scale.Of(static_cast<double>(b.value)))));
    (b.spike ? spikes : normal).push_back({b.x0, b.x1, 0, h});
  }
  g->bars = MergeBars(normal);
  g->spikes = MergeBars(spikes);
  g->max_value = scale.max;
  g->max_time_ns = max_time;
  g->time_line.clear();
  g->time_clipped.clear();
  for (const Bar& b : bars) {
    const float x = (b.x0 + b.x1) / 2;
    if (b.time_ns > max_time) g->time_clipped.push_back(x);
    const float share = std::min(1.0f, static_cast<float>(b.time_ns) / static_cast<float>(max_time));
    g->time_line.push_back(ImVec2(x, p.height() * 0.95f * share));
  }
}

void FillRects(ImDrawList* draw, const PlotRect& p, const std::vector<BarRect>& rects, ImU32 colour) {
  for (const BarRect& r : rects)
    draw->AddRectFilled(ImVec2(p.min.x + r.x0, p.max.y - r.top), ImVec2(p.min.x + r.x1, p.max.y - r.bottom), colour);
}

}  // namespace

void DrawTimeline(ImDrawList* draw, const PlotRect& p, const TimelineSeries& series, const TimelineViewport& view,
                  const TimelineLook& look, const Selection& selection, TimelineGeometry* geometry) {
  draw->AddRectFilled(p.min, p.max, ImGui::GetColorU32(ImGuiCol_ChildBg));
  if (series.size() == 0) return;
  TimelineGeometry& g = *geometry;
  if (!g.valid_ || g.first_frame_ != view.first_frame || g.frames_per_pixel_ != view.frames_per_pixel ||
      g.width_ != p.width() || g.height_ != p.height() || g.log_scale_ != look.log_scale) {
    BuildGeometry(p, series, view, look, &g.parts_);
    g.valid_ = true;
    g.first_frame_ = view.first_frame;
    g.frames_per_pixel_ = view.frames_per_pixel;
    g.width_ = p.width();
    g.height_ = p.height();
    g.log_scale_ = look.log_scale;
  }
  const TimelineGeometry::Parts& parts = g.parts_;
  ValueScale scale{parts.max_value, look.log_scale};
  const uint64_t max_time = parts.max_time_ns;
  DrawValueAxis(draw, p, scale, look.bytes);
  DrawFrameAxis(draw, p, view, series);

  draw->PushClipRect(p.min, p.max, true);
  FillRects(draw, p, parts.bars, palette::kBar);
  FillRects(draw, p, parts.spikes, palette::kSpike);
  if (look.show_time && parts.time_line.size() > 1) {
    // Linear, scaled to its own maximum (right axis): time is compared
    // between frames, not against the bars.
    std::vector<ImVec2> points(parts.time_line);
    for (ImVec2& v : points) v = ImVec2(p.min.x + v.x, p.max.y - v.y);
    draw->AddPolyline(points.data(), static_cast<int>(points.size()), palette::kTime, 0, 1.5f);
    // Off the scale (start-up, a load): a small arrow where the line is cut.
    const float top = p.max.y - p.height() * 0.95f;
    for (float x : parts.time_clipped)
      draw->AddTriangleFilled(ImVec2(p.min.x + x - 3, top + 1), ImVec2(p.min.x + x + 3, top + 1),
                              ImVec2(p.min.x + x, top - 5), palette::kTime);
  }
  if (selection.range_a) DrawRange(draw, p, view, *selection.range_a, palette::kRangeA, "A");
  if (selection.range_b) DrawRange(draw, p, view, *selection.range_b, palette::kRangeB, "B");
  if (selection.frame) {
    float x0 = p.min.x + static_cast<float>(view.XOf(*selection.frame));
    float x1 = std::max(x0 + 2, p.min.x + static_cast<float>(view.XOf(*selection.frame + 1.0)));
    draw->AddRect(ImVec2(x0 - 1, p.min.y), ImVec2(x1 + 1, p.max.y), palette::kSelected, 0, 0, 1.5f);
  }
  draw->PopClipRect();

  if (look.show_time) {
    std::string top = FormatDuration(max_time);
    draw->AddText(ImVec2(p.max.x + 6, p.min.y + p.height() * 0.05f - 7), palette::kTime, top.c_str());
    draw->AddText(ImVec2(p.max.x + 6, p.max.y - 14), palette::kTime, "0");
  }
  draw->AddLine(ImVec2(p.min.x, p.max.y), ImVec2(p.max.x, p.max.y), palette::kAxisText);
}

}  // namespace memframe::viewer
