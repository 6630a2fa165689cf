// Drawing of the frame timeline with ImDrawList: bars (one per frame, or
// one per pixel column when zoomed out), spikes, the allocator-time line,
// the selection, and both axes. No input handling here.
#pragma once

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

void DrawTimeline(ImDrawList* draw, const PlotRect& plot, const TimelineSeries& series, const TimelineViewport& view,
                  const TimelineLook& look, const Selection& selection);

}  // namespace memframe::viewer
