#include "views/timeline_view.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "format.h"
#include "style.h"
#include "views/timeline_mismatches.h"
#include "views/timeline_phases.h"

namespace memframe::viewer {

namespace {

// Zoomed all the way in, a frame is 40 pixels wide.
constexpr double kMinFramesPerPixel = 1.0 / 40;
// The bars' share of the canvas height; the live-memory graph has the rest.
constexpr float kBarsShare = 0.42f;
// A press that moves less than this is a click, not a drag.
constexpr float kClickSlop = 4;

void LegendSwatch(ImU32 colour, const char* text) {
  ImVec2 p = ImGui::GetCursorScreenPos();
  float h = ImGui::GetTextLineHeight();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f), ImVec2(p.x + h * 0.6f, p.y + h * 0.8f), colour);
  ImGui::Dummy(ImVec2(h * 0.6f, h));
  ImGui::SameLine(0, 4);
  ImGui::TextColored(palette::kDimText, "%s", text);
  ImGui::SameLine(0, 14);
}

// The timeline draws one bar per row of the frame table, while the selection
// holds frame numbers, which may start anywhere and have gaps: these convert.
uint64_t FrameOfRow(const analysis::FrameTable& table, size_t row) {
  return table.frames.empty() ? 0 : table.frames[std::min(row, table.frames.size() - 1)].frame;
}

analysis::FrameRange RowsOf(const analysis::FrameTable& table, analysis::FrameRange range) {
  auto [first, end] = table.RowsIn(range);
  return {first, end > first ? end - 1 : first};
}

Selection InRows(const Selection& selection, const analysis::FrameTable& table) {
  Selection rows = selection;
  if (rows.frame) rows.frame = table.LowerBound(*rows.frame);
  if (rows.range_a) rows.range_a = RowsOf(table, *rows.range_a);
  if (rows.range_b) rows.range_b = RowsOf(table, *rows.range_b);
  return rows;
}

}  // namespace

void TimelineView::RebuildSeries(Session& session) {
  series_session_ = &session;
  series_bytes_ = look_.bytes;
  geometry_.Invalidate();
  const auto& frames = session.frames().frames;
  series_.value.resize(frames.size());
  series_.time_ns.resize(frames.size());
  series_.spike.resize(frames.size());
  series_.frame.resize(frames.size());
  phases_ = analysis::FindPhases(session.frames());
  // Steady play is what the phases call steady, whatever else they find.
  series_.steady.assign(frames.size(), 0);
  for (const analysis::Phase& p : phases_) {
    if (p.kind != analysis::PhaseKind::kSteady) continue;
    auto [first, end] = session.frames().RowsIn(p.frames);
    std::fill(series_.steady.begin() + first, series_.steady.begin() + end, 1);
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    series_.frame[i] = frames[i].frame;
    series_.value[i] = look_.bytes ? frames[i].bytes_allocated : frames[i].allocations;
    series_.time_ns[i] = frames[i].alloc_time_ns;
    // Red where the metric on screen spikes: a frame that only spikes in
    // bytes is no outlier among allocation counts.
    series_.spike[i] = look_.bytes ? frames[i].bytes_spike : frames[i].allocations_spike;
  }
}

void TimelineView::DrawToolbar(ViewContext& ctx) {
  int metric = look_.bytes ? 1 : 0;
  ImGui::RadioButton("Allocations", &metric, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Bytes", &metric, 1);
  look_.bytes = metric == 1;
  ImGui::SameLine(0, 18);
  ImGui::Checkbox("Log scale", &look_.log_scale);
  ImGui::SameLine();
  ImGui::Checkbox("Time in allocator", &look_.show_time);
  ImGui::SameLine();
  if (ImGui::Button("Fit")) fitted_ = false;
  ImGui::SameLine();
  if (ImGui::Button("Clear selection")) ctx.selection.Clear();
  ImGui::SameLine(0, 24);
  LegendSwatch(palette::kBar, "frame");
  LegendSwatch(palette::kSpike, "spike");
  LegendSwatch(palette::kTime, "allocator time");
  LegendSwatch(palette::kRangeA, "range A");
  LegendSwatch(palette::kRangeB, "range B");
  LegendSwatch(palette::kPhaseStartup | IM_COL32_A_MASK, "start-up");
  LegendSwatch(palette::kPhaseLoad | IM_COL32_A_MASK, "load");
  LegendSwatch(palette::kPhaseUnload | IM_COL32_A_MASK, "unload");
  ImGui::NewLine();
  DrawLiveGraphChoice(ctx);
  ImGui::SameLine(0, 24);
  DrawPhaseButtons(ctx, phases_);
}

void TimelineView::DrawLiveGraphChoice(ViewContext& ctx) {
  int by = ctx.selection.live_by_filter ? 1 : 0;
  ImGui::AlignTextToFramePadding();
  ImGui::TextColored(palette::kDimText, "Live graph by");
  ImGui::SameLine();
  ImGui::RadioButton("class", &by, 0);
  ImGui::SameLine();
  ImGui::RadioButton("filter", &by, 1);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(FilterNarrows(ctx.selection)
                          ? "The sites the tables' filter keeps (search, size bin) against the other sites"
                          : "The sites the tables' filter keeps against the others: type a search above a table "
                            "or click a histogram bin first");
  ctx.selection.live_by_filter = by == 1;
}

void TimelineView::Draw(ViewContext& ctx) {
  if (series_session_ != &ctx.session || series_bytes_ != look_.bytes) RebuildSeries(ctx.session);
  DrawToolbar(ctx);
  if (series_session_ != &ctx.session || series_bytes_ != look_.bytes) RebuildSeries(ctx.session);

  const ImVec2 canvas_min = ImGui::GetCursorScreenPos();
  ImVec2 canvas_size = ImGui::GetContentRegionAvail();
  canvas_size.y = std::max(canvas_size.y, 160.0f);
  const ImVec2 canvas_max(canvas_min.x + canvas_size.x, canvas_min.y + canvas_size.y);
  // The bars above, the live-memory graph below, on the same frames.
  const float bars_bottom = canvas_min.y + canvas_size.y * kBarsShare;
  PlotRect plot = PlotRectIn(canvas_min, ImVec2(canvas_max.x, bars_bottom));

  const int width = std::max(1, static_cast<int>(plot.width()));
  if (!fitted_ || viewport_.width != width) {
    // A resize keeps the frames on screen; the first draw shows them all.
    viewport_ = fitted_ ? ClampViewport({viewport_.first_frame, viewport_.frames_per_pixel * viewport_.width / width, width},
                                        series_.size(), kMinFramesPerPixel)
                        : FitAll(series_.size(), width, kMinFramesPerPixel);
    fitted_ = true;
  }

  ImGui::InvisibleButton("timeline_canvas", canvas_size);
  HandleInput(ctx, plot);
  DrawTimeline(ImGui::GetWindowDrawList(), plot, series_, viewport_, look_,
               InRows(ctx.selection, ctx.session.frames()), &geometry_);
  DrawPhaseBands(ctx.session.frames(), phases_, plot, viewport_);  // over the bars: faint enough to read them through
  live_graph_.Draw(ctx, ImVec2(canvas_min.x, bars_bottom), canvas_max, viewport_, look_.bytes, series_.steady);
  int marker = DrawMarkers(ctx, plot);
  int mismatch = DrawMismatchMarks(ctx.session, plot, viewport_);
  if (ImGui::IsItemHovered() && drag_ == Drag::kNone) {
    if (mismatch >= 0) {
      DrawMismatchTooltip(ctx.session, mismatch);
    } else if (live_graph_.Hovered()) {
      const double row = std::floor(viewport_.FrameAt(ImGui::GetIO().MousePos.x - plot.min.x));
      if (row >= 0) live_graph_.DrawTooltip(ctx, static_cast<size_t>(row));
    } else if (marker >= 0) {
      DrawMarkerTooltip(ctx, marker);
    } else {
      DrawHoverTooltip(ctx, plot);
    }
  }
}

void TimelineView::HandleInput(ViewContext& ctx, const PlotRect& plot) {
  ImGuiIO& io = ImGui::GetIO();
  const double mouse_x = io.MousePos.x - plot.min.x;
  const double n = static_cast<double>(series_.size());
  auto frame_under_mouse = [&] {
    return static_cast<uint32_t>(std::clamp(std::floor(viewport_.FrameAt(mouse_x)), 0.0, std::max(0.0, n - 1)));
  };

  if (ImGui::IsItemHovered() && io.MouseWheel != 0)
    viewport_ = ZoomAround(viewport_, mouse_x, std::pow(0.8, io.MouseWheel), series_.size(), kMinFramesPerPixel);
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    fitted_ = false;
    return;
  }
  if (ImGui::IsItemActivated()) {
    drag_ = io.KeyShift ? Drag::kRangeA : io.KeyCtrl ? Drag::kRangeB : Drag::kPan;
    drag_start_frame_ = frame_under_mouse();
    drag_distance_ = 0;
  }
  if (ImGui::IsItemActive() && drag_ != Drag::kNone) {
    drag_distance_ += std::fabs(io.MouseDelta.x) + std::fabs(io.MouseDelta.y);
    const analysis::FrameTable& table = ctx.session.frames();
    uint32_t a = static_cast<uint32_t>(drag_start_frame_), b = frame_under_mouse();
    analysis::FrameRange range{FrameOfRow(table, std::min(a, b)), FrameOfRow(table, std::max(a, b))};
    if (drag_ == Drag::kPan && drag_distance_ >= kClickSlop) {
      viewport_.first_frame -= io.MouseDelta.x * viewport_.frames_per_pixel;
      viewport_ = ClampViewport(viewport_, series_.size(), kMinFramesPerPixel);
    } else if (drag_ == Drag::kRangeA) {
      ctx.selection.SelectRangeA(range);
    } else if (drag_ == Drag::kRangeB) {
      ctx.selection.SelectRangeB(range);
    }
  }
  if (ImGui::IsItemDeactivated()) {
    if (drag_ == Drag::kPan && drag_distance_ < kClickSlop)
      ctx.selection.SelectFrame(FrameOfRow(ctx.session.frames(), frame_under_mouse()));
    drag_ = Drag::kNone;
  }
  // Arrow keys step the selected frame while the mouse is over the timeline.
  if (ImGui::IsItemHovered() && ctx.selection.frame) {
    const analysis::FrameTable& table = ctx.session.frames();
    size_t row = table.LowerBound(*ctx.selection.frame);  // the frame's row, or the next frame's
    bool on_row = row < table.frames.size() && table.frames[row].frame == *ctx.selection.frame;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow)) && row > 0)
      ctx.selection.SelectFrame(table.frames[row - 1].frame);
    size_t next = on_row ? row + 1 : row;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow)) && next < table.frames.size())
      ctx.selection.SelectFrame(table.frames[next].frame);
  }
}

int TimelineView::DrawMarkers(ViewContext& ctx, const PlotRect& plot) {
  const auto& markers = ctx.session.markers();
  if (markers.empty()) return -1;
  constexpr float kHoverSlop = 3;
  const analysis::FrameTable& table = ctx.session.frames();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float mouse_x = ImGui::GetIO().MousePos.x, mouse_y = ImGui::GetIO().MousePos.y;
  const bool mouse_in = mouse_y >= plot.min.y && mouse_y <= plot.max.y;
  int hovered = -1;
  float hovered_distance = kHoverSlop + 1;
  // Names in up to three rows (below the range tags), each the first row
  // they fit in; a name that fits in none is left to the tooltip.
  constexpr int kLabelRows = 3;
  float last_line = -1e9f, row_end[kLabelRows] = {-1e9f, -1e9f, -1e9f};
  const float row_height = ImGui::GetTextLineHeight() + 1;
  draw->PushClipRect(plot.min, plot.max, true);
  for (size_t i = 0; i < markers.size(); ++i) {
    // Marker frames are frame numbers; the timeline's x is the row.
    size_t row = table.LowerBound(markers[i].frame);
    float x = std::floor(plot.min.x + static_cast<float>(viewport_.XOf(row + 0.5))) + 0.5f;
    if (x < plot.min.x || x > plot.max.x) continue;
    if (mouse_in && std::fabs(mouse_x - x) < hovered_distance) {
      hovered = static_cast<int>(i);
      hovered_distance = std::fabs(mouse_x - x);
    }
    if (x != last_line) draw->AddLine(ImVec2(x, plot.min.y), ImVec2(x, plot.max.y), palette::kMarker);  // one per column
    last_line = x;
    const char* name = markers[i].name.empty() ? "(unnamed)" : markers[i].name.c_str();
    for (int r = 0; r < kLabelRows; ++r) {
      if (x + 3 <= row_end[r]) continue;
      draw->AddText(ImVec2(x + 3, plot.min.y + 18 + r * row_height), palette::kMarker, name);
      row_end[r] = x + 3 + ImGui::CalcTextSize(name).x + 6;
      break;
    }
  }
  draw->PopClipRect();
  return hovered;
}

void TimelineView::DrawMarkerTooltip(ViewContext& ctx, int marker) {
  const analysis::MarkerEvent& m = ctx.session.markers()[static_cast<size_t>(marker)];
  ImGui::BeginTooltip();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::kMarker), "Marker");
  ImGui::SameLine();
  ImGui::TextUnformatted(m.name.empty() ? "(unnamed)" : m.name.c_str());
  ImGui::Text("frame %llu, %s after the start", static_cast<unsigned long long>(m.frame),
              FormatDuration(ctx.session.NsSinceStart(m.ticks)).c_str());
  ImGui::TextColored(palette::kDimText, "Pick it as A or B in the Snapshot diff tab.");
  ImGui::EndTooltip();
}

void TimelineView::DrawHoverTooltip(ViewContext& ctx, const PlotRect& plot) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (mouse.x < plot.min.x || mouse.x >= plot.max.x || series_.size() == 0) return;
  const double x = mouse.x - plot.min.x;
  double first = std::floor(viewport_.FrameAt(x));
  double last = std::max(first, std::floor(viewport_.FrameAt(x + 1)) - 1);
  if (first >= series_.size()) return;
  last = std::min(last, static_cast<double>(series_.size() - 1));
  ImGui::GetWindowDrawList()->AddLine(ImVec2(mouse.x, plot.min.y), ImVec2(mouse.x, plot.max.y), palette::kGrid);
  // When a pixel holds several frames, describe the largest of them: it is
  // the one whose bar is drawn.
  // Rows, not frame numbers.
  size_t row = static_cast<size_t>(first);
  for (size_t r = row; r <= static_cast<size_t>(last); ++r)
    if (series_.value[r] > series_.value[row]) row = r;
  const analysis::FrameTable& table = ctx.session.frames();
  const analysis::FrameStats& s = table.frames[row];
  ImGui::BeginTooltip();
  if (last > first)
    ImGui::TextColored(palette::kDimText, "frames %llu\xE2\x80\x93%llu, largest:",
                       static_cast<unsigned long long>(FrameOfRow(table, static_cast<size_t>(first))),
                       static_cast<unsigned long long>(FrameOfRow(table, static_cast<size_t>(last))));
  ImGui::Text("Frame %llu%s", static_cast<unsigned long long>(s.frame), s.spike ? "  \xE2\x96\xB2 spike" : "");
  ImGui::Separator();
  ImGui::Text("Allocated  %s in %s blocks", FormatBytes(s.bytes_allocated).c_str(), FormatCount(s.allocations).c_str());
  ImGui::Text("Freed      %s in %s blocks", FormatBytes(s.bytes_freed).c_str(), FormatCount(s.frees).c_str());
  ImGui::Text("Live       %s (peak %s)", FormatBytes(s.live_bytes).c_str(), FormatBytes(s.peak_live_bytes).c_str());
  ImGui::Text("Allocator  %s (slowest call %s)", FormatDuration(s.alloc_time_ns).c_str(),
              FormatDuration(s.slowest_alloc_ns).c_str());
  ImGui::EndTooltip();
}

nlohmann::json TimelineView::Data(ViewContext& ctx) {
  if (series_session_ != &ctx.session || series_bytes_ != look_.bytes) RebuildSeries(ctx.session);
  const analysis::FrameTable& table = ctx.session.frames();
  nlohmann::json frames = nlohmann::json::array();
  nlohmann::json spikes = nlohmann::json::array();
  for (const analysis::FrameStats& s : table.frames) {
    frames.push_back({{"frame", s.frame},
                      {"allocations", s.allocations},
                      {"bytes", s.bytes_allocated},
                      {"frees", s.frees},
                      {"bytes_freed", s.bytes_freed},
                      {"live_bytes", s.live_bytes},
                      {"alloc_time_ns", s.alloc_time_ns},
                      {"spike", s.spike}});
    if (s.spike) spikes.push_back(s.frame);
  }
  nlohmann::json markers = nlohmann::json::array();
  for (const analysis::MarkerEvent& m : ctx.session.markers())
    markers.push_back({{"name", m.name}, {"frame", m.frame}, {"ns_since_start", ctx.session.NsSinceStart(m.ticks)}});
  nlohmann::json mismatches = nlohmann::json::array();
  for (const analysis::Mismatch& m : ctx.session.Mismatches().mismatches)
    mismatches.push_back({{"kind", analysis::MismatchKindName(m.kind)}, {"frame", m.first_frame}, {"count", m.count}});
  nlohmann::json phases = nlohmann::json::array();
  for (const analysis::Phase& p : analysis::FindPhases(table))
    phases.push_back({{"phase", analysis::PhaseKindName(p.kind)},
                      {"name", analysis::PhaseName(p)},
                      {"band", PhaseBandJson(p)},
                      {"from", p.frames.from},
                      {"to", p.frames.to},
                      {"spike_threshold",
                       {{"allocations", p.allocation_spike.threshold}, {"bytes", p.bytes_spike.threshold}}}});
  nlohmann::json selection = nlohmann::json::object();
  if (ctx.selection.frame) selection["frame"] = *ctx.selection.frame;
  if (ctx.selection.range_a) selection["range_a"] = {{"from", ctx.selection.range_a->from}, {"to", ctx.selection.range_a->to}};
  if (ctx.selection.range_b) selection["range_b"] = {{"from", ctx.selection.range_b->from}, {"to", ctx.selection.range_b->to}};
  return {{"view", name()},
          {"frame_count", table.frames.size()},
          {"frames_rendered", table.frames_rendered},
          {"frame_source", table.frame_source},
          {"spikes", spikes},
          {"markers", markers},
          {"mismatches", mismatches},
          {"phases", phases},
          {"live", live_graph_.Data(ctx, series_.steady)},
          // The time line's scale with every frame on screen (timeline_draw.cc).
          {"time_scale_ns", SteadyMax(series_.time_ns, series_.steady, 0, series_.size())},
          {"selection", selection},
          {"frames", frames}};
}

}  // namespace memframe::viewer
