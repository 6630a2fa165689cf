// The live-memory graph under the timeline's bars, sharing their frames
// (x is the row of the frame table): the heap bytes live and the bytes
// mapped at the end of each frame, stacked by module class (heap solid,
// mapped faint on top), and below it what each frame allocated (up) and
// freed (down), by class too. Only the classes the toggle row keeps are
// drawn. Figures come from Session::ClassSeries (live_series.h).
#pragma once

#include <cstddef>
#include <optional>

#include <nlohmann/json.hpp>

#include "timeline_columns.h"
#include "view.h"
#include "views/timeline_draw.h"

namespace memframe::viewer {

class LiveGraph {
 public:
  // `bytes`: the allocation strip shows bytes, else block counts; on a log
  // scale or not (the timeline's Allocations / Bytes and Log scale choices).
  void Draw(ViewContext& ctx, ImVec2 canvas_min, ImVec2 canvas_max, const TimelineViewport& view, bool bytes,
            bool log_scale);
  // Whether the mouse is over the graph drawn last, and the figures of the
  // row under it.
  bool Hovered() const;
  void DrawTooltip(ViewContext& ctx, size_t row);

  // The series as --dump-view-data shows it: for each frame, each class's
  // live and mapped bytes, allocations and frees.
  static nlohmann::json Data(ViewContext& ctx);

 private:
  PlotRect live_{}, churn_{};
};

}  // namespace memframe::viewer
