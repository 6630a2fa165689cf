// The frame timeline: one bar per frame (allocations or bytes), spikes in
// red, time inside the allocator as a line, start-up, loads and unloads as
// faint bands over the bars (timeline_phases.h), and the live-memory graph under them. Wheel zooms around the mouse, drag pans, click
// selects a frame, shift-drag range A, ctrl-drag range B, double-click fits
// everything; a phase's button above the plot sets A and B across it, so
// the diff shows what it left behind.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/phases.h"

#include "timeline_columns.h"
#include "view.h"
#include "views/live_graph.h"
#include "views/timeline_draw.h"

namespace memframe::viewer {

class TimelineView : public View {
 public:
  const char* name() const override { return "timeline"; }
  const char* title() const override { return "Timeline"; }
  bool is_tab() const override { return false; }
  void Draw(ViewContext& ctx) override;
  nlohmann::json Data(ViewContext& ctx) override;
  // The same session can change its model (a thread selection).
  void OnSessionChanged() override { series_session_ = nullptr; }

 private:
  enum class Drag { kNone, kPan, kRangeA, kRangeB };

  void RebuildSeries(Session& session);
  void DrawToolbar(ViewContext& ctx);
  void HandleInput(ViewContext& ctx, const PlotRect& plot);
  void DrawHoverTooltip(ViewContext& ctx, const PlotRect& plot);
  // A thin line and the name at each marker's frame; returns the index (in
  // Session::markers) of the one under the mouse, or -1.
  int DrawMarkers(ViewContext& ctx, const PlotRect& plot);
  void DrawMarkerTooltip(ViewContext& ctx, int marker);
  void DrawLiveGraphChoice(ViewContext& ctx);

  TimelineLook look_;
  LiveGraph live_graph_;  // under the bars (live_graph.h)
  TimelineSeries series_;
  std::vector<analysis::Phase> phases_;  // of series_session_
  TimelineGeometry geometry_;  // what is drawn, kept until the viewport, size or series change
  const Session* series_session_ = nullptr;  // the session series_ was built from
  bool series_bytes_ = false;
  TimelineViewport viewport_;
  bool fitted_ = false;
  Drag drag_ = Drag::kNone;
  double drag_start_frame_ = 0;
  float drag_distance_ = 0;
};

}  // namespace memframe::viewer
