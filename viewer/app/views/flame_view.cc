#include "views/flame_view.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "format.h"
#include "snapshots.h"
#include "view_json.h"
#include "widgets/cut_text.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

namespace {

constexpr float kPanelWidth = 400;

// A stable warm colour per function, so one function reads the same
// everywhere in the graph.
ImU32 FunctionColour(const std::string& function, bool dim) {
  uint32_t h = 2166136261u;
  for (char c : function) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  int r = 200 + static_cast<int>(h % 55), g = 90 + static_cast<int>((h >> 8) % 110), b = 40 + static_cast<int>((h >> 16) % 50);
  if (dim) return IM_COL32(r / 2, g / 2, b / 2, 255);
  return IM_COL32(r, g, b, 255);
}

std::string ValueText(uint64_t value, FlameMetric metric) {
  return metric == FlameMetric::kAllocations ? FormatCount(value) + " allocations" : FormatBytes(value);
}

CallTree::StackFrames Frames(Session& session) {
  return [&session](uint32_t id) { return UserStackFrames(session, id); };
}

}  // namespace

void FlameView::Refresh(ViewContext& ctx) {
  analysis::FrameRange range = ctx.selection.FocusRange(ctx.session.AllFrames());
  const FlameMetric metric = ctx.selection.flame_metric;
  // Allocations and bytes share their rows: only the widths change.
  const bool same_rows = tree_ && range.from == range_.from && range.to == range_.to &&
                         classes_ == ctx.session.classes_generation() &&
                         (metric == metric_ || (metric != FlameMetric::kLiveBytes && metric_ != FlameMetric::kLiveBytes));
  metric_ = metric;
  if (same_rows) return;
  range_ = range;
  classes_ = ctx.session.classes_generation();
  rows_ = FlameRowsOf(ctx.session, metric, range);
  tree_ = BuildFlameTree(rows_, Frames(ctx.session));
  zoom_ = 0;
  has_callers_ = false;
}

void FlameView::RefreshCallers(ViewContext& ctx) {
  std::string function = ResolveFlameFunction(*tree_, metric_, ctx.selection.flame_function);
  if (has_callers_ && function == callers_of_) return;
  callers_of_ = function;
  has_callers_ = true;
  callers_ = function.empty() ? CallersCallees{} : FindCallersCallees(rows_, Frames(ctx.session), function);
}

void FlameView::Draw(ViewContext& ctx) {
  Refresh(ctx);
  RefreshCallers(ctx);
  DrawToolbar(ctx);
  ImGui::BeginChild("flame_canvas", ImVec2(-kPanelWidth, 0), false, ImGuiWindowFlags_NoBackground);
  DrawFlame(ctx);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("flame_callers", ImVec2(0, 0), true);
  DrawCallersPanel(ctx);
  ImGui::EndChild();
}

void FlameView::DrawToolbar(ViewContext& ctx) {
  int metric = static_cast<int>(ctx.selection.flame_metric);
  ImGui::RadioButton("Allocations", &metric, static_cast<int>(FlameMetric::kAllocations));
  ImGui::SameLine();
  ImGui::RadioButton("Bytes", &metric, static_cast<int>(FlameMetric::kBytes));
  ImGui::SameLine();
  ImGui::RadioButton("Live bytes", &metric, static_cast<int>(FlameMetric::kLiveBytes));
  ctx.selection.flame_metric = static_cast<FlameMetric>(metric);
  ImGui::SameLine(0, 20);
  const CallTreeNode& root = tree_->root();
  std::string what = metric_ == FlameMetric::kLiveBytes
                         ? "live at the end of frame " + std::to_string(range_.to) + ": " +
                               FormatBytes(root.bytes_b) + " in " + FormatCount(root.blocks_b) + " blocks"
                         : ctx.selection.Describe(ctx.session.frames()) + ": " + FormatCount(root.blocks_b) +
                               " allocations, " + FormatBytes(root.bytes_b);
  ImGui::TextColored(palette::kDimText, "%s", what.c_str());
  if (zoom_ != 0) {
    ImGui::SameLine(0, 20);
    if (ImGui::SmallButton("Zoom out")) zoom_ = 0;
  }
}

void FlameView::DrawFlame(ViewContext& ctx) {
  const CallTree& tree = *tree_;
  if (FlameValue(tree.root(), metric_) == 0) {
    ImGui::TextColored(palette::kDimText, "Nothing to show in the selected frames.");
    return;
  }
  row_height_ = ImGui::GetTextLineHeight() + 4;
  uint32_t max_depth = 0;
  for (size_t i = 0; i < tree.size(); ++i) max_depth = std::max(max_depth, tree.node(static_cast<uint32_t>(i)).depth);
  const float width = ImGui::GetContentRegionAvail().x;
  canvas_origin_ = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("flame", ImVec2(width, row_height_ * (max_depth + 1)));
  hovered_.reset();
  // The zoomed node's callers, full width above it; then the node's graph.
  std::vector<uint32_t> path;
  for (uint32_t at = zoom_; at != 0; at = tree.node(at).parent) path.push_back(at);
  int depth = 0;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (auto it = path.rbegin(); it != path.rend() && std::next(it) != path.rend(); ++it, ++depth) {
    const CallTreeNode& n = tree.node(*it);
    ImVec2 a(canvas_origin_.x, canvas_origin_.y + depth * row_height_);
    ImVec2 b(a.x + width - 1, a.y + row_height_ - 1);
    draw->AddRectFilled(a, b, FunctionColour(n.function, true));
    draw->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(230, 230, 230, 255), n.function.c_str());
  }
  DrawNode(ctx, zoom_, canvas_origin_.x, width, depth);
  if (hovered_ && ImGui::IsItemHovered()) {
    const CallTreeNode& n = tree.node(*hovered_);
    const uint64_t value = FlameValue(n, metric_), total = FlameValue(tree.root(), metric_);
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(n.function.empty() ? "all" : n.function.c_str());
    if (!n.location.empty()) ImGui::TextColored(palette::kDimText, "%s", n.location.c_str());
    ImGui::Text("%s (%.1f%% of the selection)", ValueText(value, metric_).c_str(), total ? 100.0 * value / total : 0.0);
    ImGui::TextColored(palette::kDimText, "%s blocks, %s; %u stacks", FormatCount(n.blocks_b).c_str(),
                       FormatBytes(n.bytes_b).c_str(), n.stacks);
    ImGui::TextColored(palette::kDimText, "click: callers and callees; double-click: zoom");
    ImGui::EndTooltip();
    if (ImGui::IsItemClicked()) ctx.selection.flame_function = n.function;
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) zoom_ = *hovered_;
  }
}

void FlameView::DrawNode(ViewContext& ctx, uint32_t index, float x0, float width, int depth) {
  if (width < 1) return;
  const CallTree& tree = *tree_;
  const CallTreeNode& n = tree.node(index);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  ImVec2 a(x0, canvas_origin_.y + depth * row_height_);
  ImVec2 b(x0 + width - 1, a.y + row_height_ - 1);
  const bool picked = !callers_of_.empty() && n.function == callers_of_;
  const std::string label = index == 0 ? "all" : n.function;
  draw->AddRectFilled(a, b, index == 0 ? IM_COL32(90, 96, 110, 255) : FunctionColour(n.function, false));
  if (picked) draw->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0, 0, 2);
  if (width > 24) {
    std::string shown = FitRight(label, width - 8);
    draw->PushClipRect(a, b, true);
    draw->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(20, 20, 20, 255), shown.c_str());
    draw->PopClipRect();
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (mouse.x >= a.x && mouse.x < b.x + 1 && mouse.y >= a.y && mouse.y < b.y + 1) hovered_ = index;
  const uint64_t value = FlameValue(n, metric_);
  if (value == 0) return;
  float x = x0;
  for (uint32_t child : n.children) {
    const float w = width * static_cast<float>(FlameValue(tree.node(child), metric_)) / value;
    DrawNode(ctx, child, x, w, depth + 1);
    x += w;
  }
}

void FlameView::DrawCallersPanel(ViewContext& ctx) {
  if (callers_of_.empty()) {
    ImGui::TextWrapped("Click a function in the graph to see who calls it and whom it calls.");
    return;
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(callers_of_.c_str());
  ImGui::PopTextWrapPos();
  ImGui::TextColored(palette::kDimText, "%s allocations, %s", FormatCount(callers_.blocks).c_str(),
                     FormatBytes(callers_.bytes).c_str());
  auto table = [&](const char* id, const char* title, const std::vector<FlameNeighbour>& rows) {
    if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit))
      return;
    ImGui::TableSetupColumn(title, ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn(metric_ == FlameMetric::kLiveBytes ? "Blocks" : "Allocs", ImGuiTableColumnFlags_WidthFixed, 60);
    ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_WidthFixed, 70);
    ImGui::TableHeadersRow();
    for (const FlameNeighbour& n : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const bool pseudo = n.function.starts_with("(");
      if (SelectableFitRight(n.function, false) && !pseudo) ctx.selection.flame_function = n.function;
      ImGui::TableNextColumn();
      TextRight(FormatCount(n.blocks).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(n.bytes).c_str());
    }
    ImGui::EndTable();
  };
  ImGui::Spacing();
  table("callers", "Callers", callers_.callers);
  ImGui::Spacing();
  table("callees", "Callees", callers_.callees);
}

nlohmann::json FlameView::TreeJson() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t i = 0; i < tree_->size(); ++i) {
    const CallTreeNode& n = tree_->node(static_cast<uint32_t>(i));
    nodes.push_back({{"id", i},
                     {"parent", i == 0 ? nlohmann::json(nullptr) : nlohmann::json(n.parent)},
                     {"depth", n.depth},
                     {"function", n.function},
                     {"location", n.location},
                     {"blocks", n.blocks_b},
                     {"bytes", n.bytes_b},
                     {"stacks", n.stacks}});
  }
  return nodes;
}

nlohmann::json FlameView::Data(ViewContext& ctx) {
  Refresh(ctx);
  RefreshCallers(ctx);
  auto neighbours = [](const std::vector<FlameNeighbour>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const FlameNeighbour& n : v) out.push_back({{"function", n.function}, {"blocks", n.blocks}, {"bytes", n.bytes}});
    return out;
  };
  nlohmann::json function = nullptr;
  if (!callers_of_.empty())
    function = {{"function", callers_of_},
                {"blocks", callers_.blocks},
                {"bytes", callers_.bytes},
                {"callers", neighbours(callers_.callers)},
                {"callees", neighbours(callers_.callees)}};
  return {{"view", name()},
          {"metric", FlameMetricName(metric_)},
          {"range", RangeJson(range_)},
          {"blocks", tree_->root().blocks_b},
          {"bytes", tree_->root().bytes_b},
          {"nodes", TreeJson()},
          {"function", function}};
}

}  // namespace memframe::viewer
