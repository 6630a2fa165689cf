// The live-memory graph under the timeline's bars, sharing their frames
// (x is the row of the frame table): the heap bytes live and the bytes
// mapped at the end of each frame, stacked by module class (heap solid,
// mapped faint on top), and below it what each frame allocated (up) and
// freed (down), by class too. Only the classes the toggle row keeps are
// drawn. Figures come from Session::ClassSeries (live_series.h).
//
// With GPU objects (Session::Gpu), a GPU band between the two: the GPU
// bytes live at the end of each frame by kind, on an axis of its own.
//
// Stacked by the filter instead (Selection::live_by_filter), the groups are
// the sites the tables' filter keeps (search text, size bin: whole sites)
// and the other sites of the classes shown.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "memframe/analysis/live_series.h"
#include "row_filter.h"
#include "timeline_columns.h"
#include "view.h"
#include "views/timeline_draw.h"

namespace memframe::viewer {

class LiveGraph {
 public:
  // `bytes`: the allocation strip shows bytes, else block counts (the
  // timeline's Allocations / Bytes choice). The strip's axis is linear, up to
  // the most a steady frame (`steady`, per row) allocated or freed
  // (SteadyMax): start-up and loads go off it, marked.
  void Draw(ViewContext& ctx, ImVec2 canvas_min, ImVec2 canvas_max, const TimelineViewport& view, bool bytes,
            const std::vector<uint8_t>& steady);
  // Whether the mouse is over the graph drawn last, and the figures of the
  // row under it.
  bool Hovered() const;
  void DrawTooltip(ViewContext& ctx, size_t row);

  // The series as --dump-view-data shows it: for each frame, each class's
  // (or each filter group's) live and mapped bytes, allocations and frees;
  // and the allocation strip's scale in blocks and in bytes.
  nlohmann::json Data(ViewContext& ctx, const std::vector<uint8_t>& steady);

  // One layer of the stack: a group of the series, its colour and name.
  struct Band {
    size_t group;
    ImVec4 colour;
    std::string name;
  };
  struct Stacking {
    const analysis::LiveSeries* series = nullptr;
    std::vector<Band> bands;  // bottom first
    bool by_filter = false;
    bool total = false;  // a preview's one group, every site (Session::TotalSeries)
  };
  // What the graph stacks now: the classes shown, or the filter's groups.
  Stacking Stack(ViewContext& ctx);
  // The allocation strip's scale: the most a steady frame allocated or
  // freed of the bands drawn, in bytes or blocks (SteadyMax).
  static uint64_t ChurnScale(const Stacking& stacking, bool bytes, const std::vector<uint8_t>& steady);

 private:
  PlotRect live_{}, gpu_{}, churn_{};
  // The series of the filter's groups, for the filter and model it was built with.
  analysis::LiveSeries filter_series_;
  std::optional<RowFilterKey> filter_key_;
  const Session* filter_session_ = nullptr;
};

// True when the tables' filter keeps some sites only (a search text or a size bin).
bool FilterNarrows(const Selection& selection);

}  // namespace memframe::viewer
