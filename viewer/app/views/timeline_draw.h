// Drawing of the frame timeline with ImDrawList: bars (one per frame, or
// one per pixel column when zoomed out), spikes, the allocator-time line,
// the selection, and both axes. No input handling here.
#pragma once

#include <cstdint>
#include <vector>

#include <imgui.h>

#include "selection.h"
#include "timeline_columns.h"

namespace memframe::viewer {

struct TimelineLook {
  bool bytes = false;      // the series holds bytes (axis labels in KiB/MiB)
  bool log_scale = true;
  bool show_time = true;
};

// The plot's rectangle inside a canvas: margins leave room for the axes.
struct PlotRect {
  ImVec2 min, max;
  float width() const { return max.x - min.x; }
  float height() const { return max.y - min.y; }
};
PlotRect PlotRectIn(ImVec2 canvas_min, ImVec2 canvas_max);

// What DrawTimeline derives from the series for one viewport, plot and look
// (the bars on screen, merged into rectangles, the allocator-time line):
// rebuilt only when one of those changes, not per drawn frame. Coordinates
// are relative to the plot's bottom-left corner.
class TimelineGeometry {
 public:
  void Invalidate() { valid_ = false; }

  struct Parts {
    double max_value = 1;  // the value scale's top
    uint64_t max_time_ns = 1;  // the time line's top: SteadyMax of the frames on screen
    std::vector<BarRect> bars, spikes;  // merged (MergeBars), y up from the plot's bottom
    std::vector<ImVec2> time_line;      // y up from the plot's bottom, clipped to its top
    std::vector<float> time_clipped;    // x of the points above max_time_ns
  };

 private:
  friend void DrawTimeline(ImDrawList*, const PlotRect&, const TimelineSeries&, const TimelineViewport&,
                           const TimelineLook&, const Selection&, TimelineGeometry*);
  bool valid_ = false;
  double first_frame_ = 0, frames_per_pixel_ = 0;
  float width_ = 0, height_ = 0;
  bool log_scale_ = false;
  Parts parts_;
};

void DrawTimeline(ImDrawList* draw, const PlotRect& plot, const TimelineSeries& series, const TimelineViewport& view,
                  const TimelineLook& look, const Selection& selection, TimelineGeometry* geometry);

}  // namespace memframe::viewer
