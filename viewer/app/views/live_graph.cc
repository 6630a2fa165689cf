#include "views/live_graph.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "axis_ticks.h"
#include "format.h"
#include "style.h"
#include "widgets/gpu_kind.h"
#include "widgets/site_row.h"

namespace memframe::viewer {

namespace {

using analysis::GpuAnalysis;
using analysis::GpuKind;
using analysis::LiveFigures;
using analysis::LiveSeries;
using analysis::ModuleClass;

constexpr float kLeftAxis = 70, kRightAxis = 64;  // as the bars' plot (timeline_draw.cc), so frames line up
constexpr float kGap = 6;
constexpr float kLiveShare = 0.62f;  // of the canvas; the allocation strip gets the rest
// With GPU objects, the GPU band takes a share of the canvas from the heap's.
constexpr float kHeapShareBesideGpu = 0.36f, kGpuShare = 0.26f;
constexpr float kLegend = 18;       // above the live plot's highest value

ImU32 BandColour(const LiveGraph::Band& b, int alpha) {
  return palette::WithAlpha(ImGui::ColorConvertFloat4ToU32(b.colour), alpha);
}

// The filter's groups: the sites it keeps, the other sites of the classes
// shown, and the sites of the classes hidden (never drawn).
enum FilterGroup : size_t { kMatching, kOther, kHiddenClass, kFilterGroups };

std::string DescribeFilter(const Selection& selection) {
  std::string text;
  if (!selection.search.empty()) text = "sites matching \"" + selection.search + "\"";
  if (selection.size_bin) {
    text += text.empty() ? "sites allocating " : ", allocating ";
    text += FormatSizeBin(*selection.size_bin);
  }
  return text;
}

uint64_t Resident(const LiveFigures& f) { return f.live_bytes + f.mapped_bytes; }
uint64_t Up(const LiveFigures& f, bool bytes) { return bytes ? f.bytes_allocated : f.allocations; }
uint64_t Down(const LiveFigures& f, bool bytes) { return bytes ? f.bytes_freed : f.frees; }

struct Column {
  float x0, x1;
  size_t live_row, churn_row, gpu_row;  // the rows drawn: the largest of the column's frames
};

uint64_t GpuLive(const GpuAnalysis& gpu, uint64_t frame, GpuKind kind) {
  const analysis::GpuFrame* f = gpu.Frame(frame);
  return f ? f->live_bytes[static_cast<int>(kind)] : 0;
}
uint64_t GpuTotal(const GpuAnalysis& gpu, uint64_t frame) { return gpu.LiveTotal(frame); }

// One column per pixel zoomed out (the frame with the most memory, and the
// one with the most churn, stand for the others: a one-frame peak never
// disappears into an average), one per frame zoomed in.
std::vector<Column> Columns(const LiveSeries& s, const std::vector<LiveGraph::Band>& drawn,
                            const TimelineViewport& view, float width, bool bytes, const GpuAnalysis& gpu) {
  auto total = [&](size_t row, auto&& figure) {
    uint64_t sum = 0;
    for (const LiveGraph::Band& b : drawn) sum += figure(s.At(row, b.group));
    return sum;
  };
  std::vector<Column> columns;
  const size_t n = s.rows();
  if (view.frames_per_pixel >= 1) {
    for (int x = 0; x < static_cast<int>(width); ++x) {
      const double a = std::max(0.0, std::floor(view.FrameAt(x)));
      const double b = std::min(static_cast<double>(n), std::floor(view.FrameAt(x + 1.0)));
      if (a >= b) continue;
      Column c{static_cast<float>(x), static_cast<float>(x + 1), static_cast<size_t>(a), static_cast<size_t>(a),
               static_cast<size_t>(a)};
      uint64_t best_live = 0, best_churn = 0, best_gpu = 0;
      for (size_t row = static_cast<size_t>(a); row < static_cast<size_t>(b); ++row) {
        const uint64_t live = total(row, Resident);
        const uint64_t churn = total(row, [&](const LiveFigures& f) { return Up(f, bytes) + Down(f, bytes); });
        const uint64_t on_gpu = GpuTotal(gpu, s.frames[row]);
        if (live > best_live) best_live = live, c.live_row = row;
        if (churn > best_churn) best_churn = churn, c.churn_row = row;
        if (on_gpu > best_gpu) best_gpu = on_gpu, c.gpu_row = row;
      }
      columns.push_back(c);
    }
    return columns;
  }
  const size_t first = static_cast<size_t>(std::max(0.0, std::floor(view.first_frame)));
  const size_t last = std::min(n, static_cast<size_t>(std::ceil(view.FrameAt(width))) + 1);
  for (size_t row = first; row < last; ++row) {
    const float x0 = std::max(0.0f, static_cast<float>(view.XOf(static_cast<double>(row))));
    const float x1 = std::min(width, static_cast<float>(view.XOf(row + 1.0)));
    if (x1 > x0) columns.push_back({x0, x1, row, row, row});
  }
  return columns;
}

void LeftLabel(ImDrawList* draw, const PlotRect& p, float y, const std::string& text) {
  ImVec2 size = ImGui::CalcTextSize(text.c_str());
  draw->AddText(ImVec2(p.min.x - size.x - 6, y - size.y / 2), palette::kAxisText, text.c_str());
}

void DrawLegend(ImDrawList* draw, const PlotRect& p, const std::vector<LiveGraph::Band>& drawn, bool bytes) {
  ImVec2 at(p.min.x + 6, p.min.y + 2);
  const char* intro = bytes ? "Live heap (solid) and mapped (faint) at each frame's end; below, bytes allocated (up) "
                              "and freed (down):"
                            : "Live heap (solid) and mapped (faint) at each frame's end; below, blocks allocated (up) "
                              "and freed (down):";
  draw->AddText(at, palette::kAxisText, intro);
  at.x += ImGui::CalcTextSize(intro).x + 8;
  for (const LiveGraph::Band& b : drawn) {
    const float h = ImGui::GetTextLineHeight();
    draw->AddRectFilled(ImVec2(at.x, at.y + h * 0.2f), ImVec2(at.x + h * 0.6f, at.y + h * 0.8f), BandColour(b, 255));
    at.x += h * 0.6f + 4;
    draw->AddText(at, palette::kAxisText, b.name.c_str());
    at.x += ImGui::CalcTextSize(b.name.c_str()).x + 12;
  }
}

void DrawGpuLegend(ImDrawList* draw, const PlotRect& p, const std::vector<GpuKind>& kinds) {
  ImVec2 at(p.min.x + 6, p.min.y + 2);
  const char* intro = "GPU objects live at each frame's end (GL / Vulkan), by kind:";
  draw->AddText(at, palette::kAxisText, intro);
  at.x += ImGui::CalcTextSize(intro).x + 8;
  for (GpuKind k : kinds) {
    const float h = ImGui::GetTextLineHeight();
    draw->AddRectFilled(ImVec2(at.x, at.y + h * 0.2f), ImVec2(at.x + h * 0.6f, at.y + h * 0.8f),
                        ImGui::ColorConvertFloat4ToU32(GpuKindColour(k)));
    at.x += h * 0.6f + 4;
    draw->AddText(at, palette::kAxisText, analysis::GpuKindName(k));
    at.x += ImGui::CalcTextSize(analysis::GpuKindName(k)).x + 12;
  }
}

}  // namespace

bool FilterNarrows(const Selection& selection) { return !selection.search.empty() || selection.size_bin.has_value(); }

LiveGraph::Stacking LiveGraph::Stack(ViewContext& ctx) {
  Session& session = ctx.session;
  Stacking stacking;
  if (!session.HasClassSeries()) {  // a preview whose index has no classes: the total
    stacking.series = &session.TotalSeries();
    stacking.total = true;
    stacking.bands = {{0, ImGui::ColorConvertU32ToFloat4(palette::kBar), "every site (by class once loaded)"}};
  } else if (!session.preview() && ctx.selection.live_by_filter && FilterNarrows(ctx.selection)) {
    // (The filter's groups need the events: a preview stacks by class.)
    const RowFilterKey key = FilterKeyOf(session, ctx.selection);
    if (filter_session_ != &session || filter_key_ != key) {
      RowFilter filter(session, ctx.selection);
      filter_series_ = analysis::ComputeLiveSeries(
          session.capture().main, session.frames(), kFilterGroups, [&](uint32_t stack_id) -> size_t {
            if (!session.Keeps(stack_id)) return kHiddenClass;
            return filter.Keeps(stack_id) ? kMatching : kOther;
          });
      filter_session_ = &session;
      filter_key_ = key;
    }
    stacking.series = &filter_series_;
    stacking.by_filter = true;
    stacking.bands = {{kMatching, ImGui::ColorConvertU32ToFloat4(palette::kSpike), DescribeFilter(ctx.selection)},
                      {kOther, palette::kDimText, "other sites"}};
  } else {
    stacking.series = &session.ClassSeries();
    for (ModuleClass c : analysis::AllModuleClasses()) {
      if (session.class_filter().Keeps(c))
        stacking.bands.push_back({static_cast<size_t>(c), ModuleClassColour(c), analysis::ModuleClassName(c)});
    }
  }
  std::erase_if(stacking.bands, [&](const Band& b) { return !stacking.series->Present(b.group); });
  return stacking;
}

uint64_t LiveGraph::ChurnScale(const Stacking& stacking, bool bytes, const std::vector<uint8_t>& steady) {
  const LiveSeries& s = *stacking.series;
  std::vector<uint64_t> churn(s.rows());  // per row, the larger of allocated and freed
  for (size_t row = 0; row < s.rows(); ++row) {
    uint64_t up = 0, down = 0;
    for (const Band& b : stacking.bands) {
      up += Up(s.At(row, b.group), bytes);
      down += Down(s.At(row, b.group), bytes);
    }
    churn[row] = std::max(up, down);
  }
  return SteadyMax(churn, steady, 0, churn.size());
}

void LiveGraph::Draw(ViewContext& ctx, ImVec2 canvas_min, ImVec2 canvas_max, const TimelineViewport& view, bool bytes,
                     const std::vector<uint8_t>& steady) {
  const GpuAnalysis& gpu = ctx.session.Gpu();
  const std::vector<GpuKind> gpu_kinds = analysis::GpuKindsMade(gpu, true);
  const float height = canvas_max.y - canvas_min.y;
  const float split = canvas_min.y + height * (gpu_kinds.empty() ? kLiveShare : kHeapShareBesideGpu);
  live_ = {ImVec2(canvas_min.x + kLeftAxis, canvas_min.y + kGap), ImVec2(canvas_max.x - kRightAxis, split)};
  gpu_ = {ImVec2(live_.min.x, split), ImVec2(live_.max.x, split)};
  if (!gpu_kinds.empty()) gpu_ = {ImVec2(live_.min.x, split + kGap), ImVec2(live_.max.x, split + height * kGpuShare)};
  churn_ = {ImVec2(live_.min.x, gpu_.max.y + kGap), ImVec2(live_.max.x, canvas_max.y - 8)};
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(live_.min, live_.max, ImGui::GetColorU32(ImGuiCol_ChildBg));
  if (!gpu_kinds.empty()) draw->AddRectFilled(gpu_.min, gpu_.max, ImGui::GetColorU32(ImGuiCol_ChildBg));
  draw->AddRectFilled(churn_.min, churn_.max, ImGui::GetColorU32(ImGuiCol_ChildBg));
  const Stacking stacking = Stack(ctx);
  const LiveSeries& s = *stacking.series;
  const std::vector<Band>& drawn = stacking.bands;
  if (s.rows() == 0 || live_.height() < 8 || churn_.height() < 8) return;

  // Scales over every frame, not the ones on screen: panning keeps them.
  uint64_t max_live = 1;
  for (size_t row = 0; row < s.rows(); ++row) {
    uint64_t live = 0;
    for (const Band& b : drawn) live += Resident(s.At(row, b.group));
    max_live = std::max(max_live, live);
  }
  const float live_height = live_.height() - kLegend;  // the legend sits above the highest value
  for (const AxisTick& t : LinearTicks(static_cast<double>(max_live), true, 4)) {
    const float y = live_.max.y - live_height * static_cast<float>(t.value / max_live);
    draw->AddLine(ImVec2(live_.min.x, y), ImVec2(live_.max.x, y), palette::kGrid);
    LeftLabel(draw, live_, y, t.label);
  }
  // The GPU band: its own linear axis, up to the GPU peak (the heap's would
  // flatten one or the other).
  const uint64_t max_gpu = std::max<uint64_t>(gpu.peak_total, 1);
  const float gpu_height = gpu_.height() - kLegend;
  if (!gpu_kinds.empty()) {
    for (const AxisTick& t : LinearTicks(static_cast<double>(max_gpu), true, 2)) {
      const float y = gpu_.max.y - gpu_height * static_cast<float>(t.value / max_gpu);
      draw->AddLine(ImVec2(gpu_.min.x, y), ImVec2(gpu_.max.x, y), palette::kGrid);
      LeftLabel(draw, gpu_, y, t.label);
    }
  }
  // The strip: linear, each class's band its own height, up to what steady
  // play allocates or frees at most; a frame beyond (start-up, a load) is
  // cut at the edge and marked.
  const uint64_t max_churn = ChurnScale(stacking, bytes, steady);
  const float zero = (churn_.min.y + churn_.max.y) / 2, half = churn_.height() / 2;
  const float per_unit = half / static_cast<float>(max_churn);
  const std::vector<AxisTick> churn_ticks = LinearTicks(static_cast<double>(max_churn), bytes, 2);
  for (size_t i = 0; i < churn_ticks.size(); ++i) {
    const AxisTick& t = churn_ticks[i];
    const float dy = per_unit * static_cast<float>(t.value);
    draw->AddLine(ImVec2(churn_.min.x, zero - dy), ImVec2(churn_.max.x, zero - dy), palette::kGrid);
    draw->AddLine(ImVec2(churn_.min.x, zero + dy), ImVec2(churn_.max.x, zero + dy), palette::kGrid);
    // Labels where a line of text fits between them: the outermost always.
    const float next_dy = i + 1 < churn_ticks.size() ? per_unit * static_cast<float>(churn_ticks[i + 1].value) : 1e9f;
    if (i + 1 < churn_ticks.size() && next_dy - dy < ImGui::GetTextLineHeight()) continue;
    LeftLabel(draw, churn_, zero - dy, "+" + t.label);
    LeftLabel(draw, churn_, zero + dy, "\xE2\x88\x92" + t.label);  // U+2212 MINUS SIGN
  }

  draw->PushClipRect(live_.min, ImVec2(live_.max.x, churn_.max.y), true);
  for (const Column& col : Columns(s, drawn, view, live_.width(), bytes, gpu)) {
    const float x0 = live_.min.x + col.x0, x1 = live_.min.x + col.x1;
    float gpu_y = gpu_.max.y;
    for (GpuKind k : gpu_kinds) {
      const uint64_t v = GpuLive(gpu, s.frames[col.gpu_row], k);
      if (v == 0) continue;
      const float top = gpu_y - gpu_height * static_cast<float>(static_cast<double>(v) / max_gpu);
      draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, gpu_y), ImGui::ColorConvertFloat4ToU32(GpuKindColour(k)));
      gpu_y = top;
    }
    // Heap of each class from the bottom, then each class's mappings.
    float y = live_.max.y;
    for (int mapped = 0; mapped < 2; ++mapped) {
      for (const Band& b : drawn) {
        const LiveFigures& f = s.At(col.live_row, b.group);
        const uint64_t v = mapped ? f.mapped_bytes : f.live_bytes;
        if (v == 0) continue;
        const float top = y - live_height * static_cast<float>(static_cast<double>(v) / max_live);
        draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, y), BandColour(b, mapped ? 90 : 230));
        y = top;
      }
    }
    // Each class's band on the linear axis, stacked out from zero; what
    // passes the strip's edge is cut there and marked.
    float up = zero, down = zero;
    for (const Band& b : drawn) {
      const LiveFigures& f = s.At(col.churn_row, b.group);
      const float hu = per_unit * static_cast<float>(Up(f, bytes)), hd = per_unit * static_cast<float>(Down(f, bytes));
      const float up_top = std::max(churn_.min.y, up - std::max(hu, 1.0f));
      const float down_bottom = std::min(churn_.max.y, down + std::max(hd, 1.0f));
      if (hu > 0 && up > up_top) draw->AddRectFilled(ImVec2(x0, up_top), ImVec2(x1, up), BandColour(b, 230));
      if (hd > 0 && down_bottom > down) draw->AddRectFilled(ImVec2(x0, down), ImVec2(x1, down_bottom), BandColour(b, 120));
      up -= hu;
      down += hd;
    }
    const float xm = (x0 + x1) / 2;
    if (up < churn_.min.y)
      draw->AddTriangleFilled(ImVec2(xm - 3, churn_.min.y + 6), ImVec2(xm + 3, churn_.min.y + 6),
                              ImVec2(xm, churn_.min.y), palette::kAxisText);
    if (down > churn_.max.y)
      draw->AddTriangleFilled(ImVec2(xm - 3, churn_.max.y - 6), ImVec2(xm + 3, churn_.max.y - 6),
                              ImVec2(xm, churn_.max.y), palette::kAxisText);
  }
  draw->PopClipRect();
  draw->AddLine(ImVec2(churn_.min.x, zero), ImVec2(churn_.max.x, zero), palette::kAxisText);
  draw->AddLine(ImVec2(live_.min.x, live_.max.y), ImVec2(live_.max.x, live_.max.y), palette::kAxisText);
  if (!gpu_kinds.empty()) {
    draw->AddLine(ImVec2(gpu_.min.x, gpu_.max.y), ImVec2(gpu_.max.x, gpu_.max.y), palette::kAxisText);
    DrawGpuLegend(draw, gpu_, gpu_kinds);
  }
  DrawLegend(draw, live_, drawn, bytes);
}

bool LiveGraph::Hovered() const {
  const ImVec2 m = ImGui::GetIO().MousePos;
  return m.x >= live_.min.x && m.x < live_.max.x && m.y >= live_.min.y && m.y <= churn_.max.y;
}

void LiveGraph::DrawTooltip(ViewContext& ctx, size_t row) {
  const Stacking stacking = Stack(ctx);
  const LiveSeries& s = *stacking.series;
  if (row >= s.rows()) return;
  const std::vector<Band>& drawn = stacking.bands;
  ImGui::BeginTooltip();
  ImGui::Text("Frame %llu: at its end, and what it allocated and freed", static_cast<unsigned long long>(s.frames[row]));
  ImGui::Separator();
  if (ImGui::BeginTable("live_tip", 7, ImGuiTableFlags_SizingFixedFit)) {
    for (const char* h : {stacking.by_filter ? "sites" : "class", "live heap", "mapped", "allocs", "frees", "allocated", "freed"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    auto add_row = [&](const char* name, ImVec4 colour, const LiveFigures& f) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(colour, "%s", name);
      // A preview's mapped bytes are not known yet (they need the events).
      const std::string mapped = stacking.total ? "loading" : FormatBytes(f.mapped_bytes);
      for (const std::string& cell : {FormatBytes(f.live_bytes), mapped, FormatCount(f.allocations),
                                      FormatCount(f.frees), FormatBytes(f.bytes_allocated), FormatBytes(f.bytes_freed)}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cell.c_str());
      }
    };
    LiveFigures total;
    for (const Band& b : drawn) {
      total += s.At(row, b.group);
      add_row(b.name.c_str(), b.colour, s.At(row, b.group));
    }
    if (drawn.size() > 1) add_row("shown", palette::kDimText, total);
    ImGui::EndTable();
  }
  if (!ctx.session.class_filter().KeepsAll())
    ImGui::TextColored(palette::kDimText, "Classes hidden by the toggle row are left out.");
  const GpuAnalysis& gpu = ctx.session.Gpu();
  const std::vector<GpuKind> gpu_kinds = analysis::GpuKindsMade(gpu, true);
  if (const analysis::GpuFrame* f = gpu_kinds.empty() ? nullptr : gpu.Frame(s.frames[row])) {
    ImGui::Separator();
    ImGui::Text("GPU at its end: %s (%s made, %s deleted in the frame)", FormatBytes(f->total()).c_str(),
                FormatCount(f->made).c_str(), FormatCount(f->deleted).c_str());
    for (GpuKind k : gpu_kinds)
      ImGui::TextColored(GpuKindColour(k), "  %s %s", analysis::GpuKindName(k),
                         FormatBytes(f->live_bytes[static_cast<int>(k)]).c_str());
  }
  ImGui::EndTooltip();
}

namespace {
// The GPU band's figures per row: null when the capture made no GPU object.
nlohmann::json GpuData(const GpuAnalysis& gpu, const LiveSeries& s) {
  const std::vector<GpuKind> kinds = analysis::GpuKindsMade(gpu, true);
  if (kinds.empty()) return nullptr;
  nlohmann::json names = nlohmann::json::array(), frames = nlohmann::json::array();
  for (GpuKind k : kinds) names.push_back(analysis::GpuKindName(k));
  for (size_t row = 0; row < s.rows(); ++row) {
    nlohmann::json live = nlohmann::json::object();
    for (GpuKind k : kinds) live[analysis::GpuKindName(k)] = GpuLive(gpu, s.frames[row], k);
    frames.push_back({{"frame", s.frames[row]}, {"live_bytes", std::move(live)}, {"total", GpuTotal(gpu, s.frames[row])}});
  }
  return {{"kinds", std::move(names)}, {"peak_bytes", gpu.peak_total}, {"frames", std::move(frames)}};
}
}  // namespace

nlohmann::json LiveGraph::Data(ViewContext& ctx, const std::vector<uint8_t>& steady) {
  const Stacking stacking = Stack(ctx);
  const LiveSeries& s = *stacking.series;
  // Stacked by class, the groups are named after their classes; by the
  // filter, "matching" and "other".
  auto key = [&](const Band& b) -> std::string {
    if (stacking.total) return "all";
    if (!stacking.by_filter) return b.name;
    return b.group == kMatching ? "matching" : "other";
  };
  nlohmann::json names = nlohmann::json::array();
  for (const Band& b : stacking.bands) names.push_back(key(b));
  nlohmann::json frames = nlohmann::json::array();
  for (size_t row = 0; row < s.rows(); ++row) {
    nlohmann::json groups = nlohmann::json::object();
    for (const Band& b : stacking.bands) {
      const LiveFigures& f = s.At(row, b.group);
      groups[key(b)] = {{"live_bytes", f.live_bytes},           {"mapped_bytes", f.mapped_bytes},
                        {"allocations", f.allocations},         {"frees", f.frees},
                        {"bytes_allocated", f.bytes_allocated}, {"bytes_freed", f.bytes_freed}};
    }
    frames.push_back({{"frame", s.frames[row]}, {stacking.by_filter || stacking.total ? "groups" : "classes", std::move(groups)}});
  }
  nlohmann::json data = {{"stacked_by", stacking.total ? "total" : stacking.by_filter ? "filter" : "class"},
                         {"churn_scale", {{"blocks", ChurnScale(stacking, false, steady)},
                                          {"bytes", ChurnScale(stacking, true, steady)}}},
                         {"frames", std::move(frames)}};
  data["gpu"] = GpuData(ctx.session.Gpu(), s);
  if (stacking.total) {
    data["groups"] = std::move(names);
  } else if (stacking.by_filter) {
    data["groups"] = std::move(names);
    data["filter"] = DescribeFilter(ctx.selection);
  } else {
    data["module_classes"] = std::move(names);
  }
  return data;
}

}  // namespace memframe::viewer
