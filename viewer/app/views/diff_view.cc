#include "views/diff_view.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include <imgui.h>

#include "format.h"
#include "snapshots.h"
#include "view_json.h"
#include "row_filter.h"
#include "widgets/filter_bar.h"
#include "widgets/site_row.h"
#include "widgets/stack_panel.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

namespace {

using Change = analysis::LiveSetDiffRow::Change;

// Growth is what a developer hunts: warm colours; what was released: cool.
ImVec4 ChangeColour(Change c) {
  switch (c) {
    case Change::kNew: return ImVec4(1.0f, 0.62f, 0.30f, 1);
    case Change::kGrew: return ImVec4(0.96f, 0.42f, 0.36f, 1);
    case Change::kShrank: return ImVec4(0.45f, 0.80f, 0.62f, 1);
    case Change::kGone: return ImVec4(0.45f, 0.70f, 0.85f, 1);
  }
  return palette::kDimText;
}

std::string SignedBytes(int64_t delta) {
  std::string text = FormatBytes(static_cast<uint64_t>(std::llabs(delta)));
  return delta > 0 ? "+" + text : delta < 0 ? "\xE2\x88\x92" + text : text;  // U+2212 minus
}

std::string SignedCount(int64_t delta) {
  std::string text = FormatCount(static_cast<uint64_t>(std::llabs(delta)));
  return delta > 0 ? "+" + text : delta < 0 ? "\xE2\x88\x92" + text : text;
}

enum Column { kFunction, kLocation, kDeltaBytes, kDeltaBlocks, kBytesA, kBytesB, kChange, kColumns };

}  // namespace

std::pair<uint64_t, uint64_t> DiffView::Frames(ViewContext& ctx) {
  analysis::FrameRange all = ctx.session.AllFrames();
  DiffRanges d = DefaultDiffRanges(ctx.session.frames());
  analysis::FrameRange a = ctx.selection.range_a.value_or(d.a), b = ctx.selection.range_b.value_or(d.b);
  return {std::min(a.to, all.to), std::min(b.to, all.to)};
}

analysis::LiveSetCut DiffView::CutOf(ViewContext& ctx, const std::optional<std::string>& marker, uint64_t frame) {
  if (marker) {
    std::string error;
    auto cut = analysis::ResolveCut(ctx.session.capture().main, *marker, ctx.session.frames(), &error);
    if (cut) return *cut;
    error_ = error;
  }
  analysis::LiveSetCut cut;
  cut.kind = analysis::LiveSetCut::Kind::kEndOfFrame;
  cut.frame = frame;
  cut.text = std::to_string(frame);
  return cut;
}

void DiffView::Refresh(ViewContext& ctx) {
  auto [a, b] = Frames(ctx);
  if (has_diff_ && a == frame_a_ && b == frame_b_ && marker_a_ == ctx.selection.marker_a &&
      marker_b_ == ctx.selection.marker_b && FilterKeyOf(ctx.session, ctx.selection) == filter_key_)
    return;
  filter_key_ = FilterKeyOf(ctx.session, ctx.selection);
  frame_a_ = a;
  frame_b_ = b;
  marker_a_ = ctx.selection.marker_a;
  marker_b_ = ctx.selection.marker_b;
  error_.clear();
  cut_a_ = CutOf(ctx, marker_a_, a);
  cut_b_ = CutOf(ctx, marker_b_, b);
  diff_ = DiffAtCuts(ctx.session, cut_a_, cut_b_);
  total_rows_ = diff_.rows.size();
  RowFilter filter(ctx.session, ctx.selection);
  std::erase_if(diff_.rows, [&](const analysis::LiveSetDiffRow& r) { return !filter.Keeps(r.stack_id); });
  trees_[0].reset();
  trees_[1].reset();
  selected_stack_.reset();
  has_diff_ = true;
}

const CallTree& DiffView::Tree(ViewContext& ctx) {
  std::optional<CallTree>& tree = trees_[static_cast<int>(order_)];
  if (!tree) {
    Session& session = ctx.session;
    tree = CallTree::Build(diff_.rows, order_, [&](uint32_t id) { return UserStackFrames(session, id); });
  }
  return *tree;
}

void DiffView::Draw(ViewContext& ctx) {
  Refresh(ctx);
  DrawSummary(ctx);
  DrawFilterBar(ctx.selection, false, diff_.rows.size(), total_rows_);
  float stack_height = selected_stack_ ? ImGui::GetContentRegionAvail().y * 0.38f : 0;
  ImGui::BeginChild("diff_tree", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTree(ctx);
  ImGui::EndChild();
  if (selected_stack_) {
    ImGui::BeginChild("diff_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, *selected_stack_, ctx.fonts);
    ImGui::EndChild();
  }
}

namespace {

std::string CutLabel(const analysis::LiveSetCut& cut) {
  if (cut.kind == analysis::LiveSetCut::Kind::kMarker)
    return "marker '" + cut.text + "' (frame " + std::to_string(cut.frame) + ")";
  return "end of frame " + std::to_string(cut.frame);
}

}  // namespace

void DiffView::DrawCutPicker(ViewContext& ctx, const char* label, bool is_a) {
  std::optional<std::string>& marker = is_a ? ctx.selection.marker_a : ctx.selection.marker_b;
  const uint64_t frame = is_a ? frame_a_ : frame_b_;
  ImGui::AlignTextToFramePadding();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(is_a ? palette::kRangeA : palette::kRangeB), "%s", label);
  ImGui::SameLine();
  std::string range_item = std::string("end of range ") + label + " (frame " + std::to_string(frame) + ")";
  const analysis::LiveSetCut& cut = is_a ? cut_a_ : cut_b_;
  std::string preview = marker ? "marker " + *marker + " (frame " + std::to_string(cut.frame) + ")" : range_item;
  ImGui::SetNextItemWidth(std::max(260.0f, ImGui::CalcTextSize(preview.c_str()).x + 40));
  ImGui::PushID(label);
  if (ImGui::BeginCombo("##cut", preview.c_str())) {
    if (ImGui::Selectable(range_item.c_str(), !marker)) marker.reset();
    // One entry per name: a name stands for its first marker, as in the CLI.
    std::vector<const std::string*> names;
    for (const analysis::MarkerEvent& m : ctx.session.markers()) {
      if (m.name.empty()) continue;
      if (std::any_of(names.begin(), names.end(), [&](const std::string* n) { return *n == m.name; })) continue;
      names.push_back(&m.name);
      std::string item = "marker " + m.name + "  (frame " + std::to_string(m.frame) + ")";
      ImGui::PushID(static_cast<int>(names.size()));
      if (ImGui::Selectable(item.c_str(), marker && *marker == m.name)) marker = m.name;
      ImGui::PopID();
    }
    if (names.empty()) ImGui::TextColored(palette::kDimText, "no named markers in this capture");
    ImGui::EndCombo();
  }
  ImGui::PopID();
}

void DiffView::DrawSummary(ViewContext& ctx) {
  // One line each: A and B are often long marker names.
  auto snapshot = [](uint64_t blocks, uint64_t bytes) {
    ImGui::SameLine();
    ImGui::Text("%s in %s", FormatBytes(bytes).c_str(), Plural(blocks, "block").c_str());
  };
  DrawCutPicker(ctx, "A", true);
  snapshot(diff_.blocks_a, diff_.bytes_a);
  DrawCutPicker(ctx, "B", false);
  snapshot(diff_.blocks_b, diff_.bytes_b);
  ImGui::SameLine(0, 24);
  int64_t delta = static_cast<int64_t>(diff_.bytes_b) - static_cast<int64_t>(diff_.bytes_a);
  int64_t blocks = static_cast<int64_t>(diff_.blocks_b) - static_cast<int64_t>(diff_.blocks_a);
  ImGui::TextColored(ChangeColour(delta >= 0 ? Change::kGrew : Change::kShrank), "%s (%s blocks)",
                     SignedBytes(delta).c_str(), SignedCount(blocks).c_str());
  if (!error_.empty()) ImGui::TextColored(palette::kError, "%s", error_.c_str());

  if (ImGui::RadioButton("Bottom-up", order_ == CallTree::Order::kBottomUp)) order_ = CallTree::Order::kBottomUp;
  ImGui::SameLine();
  if (ImGui::RadioButton("Top-down", order_ == CallTree::Order::kTopDown)) order_ = CallTree::Order::kTopDown;
  uint64_t count[4] = {};
  for (const auto& row : diff_.rows) count[static_cast<int>(row.change)]++;
  for (Change c : {Change::kNew, Change::kGrew, Change::kShrank, Change::kGone}) {
    ImGui::SameLine(0, 18);
    ImGui::TextColored(ChangeColour(c), "%s %s", FormatCount(count[static_cast<int>(c)]).c_str(),
                       analysis::ChangeName(c));
  }
  ImGui::SameLine(0, 18);
  ImGui::TextColored(palette::kDimText, "call stacks.  Shift-drag / ctrl-drag on the timeline picks A / B, or pick a marker.");
}

void DiffView::DrawTree(ViewContext& ctx) {
  if (diff_.rows.empty()) {
    ImGui::TextColored(palette::kDimText, "The live heap is the same at %s and at %s.", CutLabel(cut_a_).c_str(),
                       CutLabel(cut_b_).c_str());
    return;
  }
  const CallTree& tree = Tree(ctx);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("diff", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Location", ImGuiTableColumnFlags_WidthFixed, 140);
  ImGui::TableSetupColumn("\xCE\x94 bytes", ImGuiTableColumnFlags_WidthFixed, 150);
  ImGui::TableSetupColumn("\xCE\x94 blocks", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("Bytes at A", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Bytes at B", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Change", ImGuiTableColumnFlags_WidthFixed, 60);
  ImGui::TableHeadersRow();
  for (uint32_t child : tree.root().children) DrawNode(tree, child);
  ImGui::EndTable();
}

void DiffView::DrawNode(const CallTree& tree, uint32_t index) {
  const CallTreeNode& n = tree.node(index);
  const CallTreeNode& parent = tree.node(n.parent);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanFullWidth | ImGuiTreeNodeFlags_OpenOnArrow |
                             ImGuiTreeNodeFlags_OpenOnDoubleClick;
  if (n.children.empty()) flags |= ImGuiTreeNodeFlags_Leaf | ImGuiTreeNodeFlags_NoTreePushOnOpen;
  // Open the biggest change's path, and chains of one caller, so the answer
  // is on screen without clicking.
  if ((parent.children.front() == index && n.depth <= 4) || parent.children.size() == 1)
    flags |= ImGuiTreeNodeFlags_DefaultOpen;
  if (selected_stack_ && selected_node_ == index) flags |= ImGuiTreeNodeFlags_Selected;
  ImGui::PushID(static_cast<int>(index));
  const std::string shown =
      FitRight(n.function, ImGui::GetContentRegionAvail().x - ImGui::GetTreeNodeToLabelSpacing());
  bool open = ImGui::TreeNodeEx("##node", flags, "%s", shown.c_str());
  ImGui::PopID();
  if (ImGui::IsItemClicked() && !ImGui::IsItemToggledOpen()) {
    selected_node_ = index;
    selected_stack_ = n.first_stack_id;
  }
  if (ImGui::IsItemHovered() && (n.stacks > 1 || shown != n.function)) {
    std::string tip = shown != n.function ? n.function : "";
    if (n.stacks > 1)
      tip += (tip.empty() ? "" : "\n") + std::to_string(n.stacks) +
             " call stacks; the stack below is the one that changed most";
    ImGui::SetTooltip("%s", tip.c_str());
  }
  ImGui::TableNextColumn();
  TextFitLeft(n.location, palette::kDimText);
  ImGui::TableNextColumn();
  const CallTreeNode& root = tree.root();
  uint64_t scale = std::max(root.bytes_a, root.bytes_b);
  float fraction = scale ? static_cast<float>(std::llabs(n.delta_bytes())) / scale : 0;
  ImU32 bar = ImGui::ColorConvertFloat4ToU32(ChangeColour(n.change()));
  BarCell(fraction, palette::WithAlpha(bar, 90), SignedBytes(n.delta_bytes()).c_str());
  ImGui::TableNextColumn();
  TextRight(SignedCount(n.delta_blocks()).c_str());
  ImGui::TableNextColumn();
  TextRight(FormatBytes(n.bytes_a).c_str());
  ImGui::TableNextColumn();
  TextRight(FormatBytes(n.bytes_b).c_str());
  ImGui::TableNextColumn();
  if (n.delta_bytes() == 0 && n.delta_blocks() == 0) {
    // Stacks below it changed in opposite directions that cancel out.
    ImGui::TextColored(palette::kDimText, "churn");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Blocks were freed and others allocated: the totals are equal");
  } else {
    ImGui::TextColored(ChangeColour(n.change()), "%s", analysis::ChangeName(n.change()));
  }
  if (open && !n.children.empty()) {
    for (uint32_t child : n.children) DrawNode(tree, child);
    ImGui::TreePop();
  }
}

namespace {

// As the diff report's JSON names a cut ("kind" frame or marker).
nlohmann::json CutJson(const analysis::LiveSetCut& cut, uint64_t blocks, uint64_t bytes) {
  bool marker = cut.kind == analysis::LiveSetCut::Kind::kMarker;
  return {{"cut", cut.text}, {"kind", marker ? "marker" : "frame"}, {"frame", cut.frame}, {"blocks", blocks},
          {"bytes", bytes}};
}

}  // namespace

nlohmann::json DiffView::Data(ViewContext& ctx) {
  Refresh(ctx);
  nlohmann::json rows = nlohmann::json::array();
  analysis::JsonStackTable stacks;
  for (const analysis::LiveSetDiffRow& r : diff_.rows) {
    analysis::SiteStats site;
    site.stack_id = r.stack_id;
    rows.push_back(nlohmann::json(analysis::DiffRowJson(r, SiteViewOf(ctx.session, site), stacks)));
  }
  // The bottom-up tree's roots: what the view lists first.
  order_ = CallTree::Order::kBottomUp;
  const CallTree& tree = Tree(ctx);
  nlohmann::json roots = nlohmann::json::array();
  for (uint32_t i : tree.root().children) {
    const CallTreeNode& n = tree.node(i);
    roots.push_back({{"function", n.function}, {"location", n.location}, {"change", analysis::ChangeName(n.change())},
                     {"bytes_a", n.bytes_a}, {"bytes_b", n.bytes_b}, {"delta_bytes", n.delta_bytes()},
                     {"delta_blocks", n.delta_blocks()}, {"stacks", n.stacks}});
  }
  nlohmann::json data = {{"view", name()},
          {"a", CutJson(cut_a_, diff_.blocks_a, diff_.bytes_a)},
          {"b", CutJson(cut_b_, diff_.blocks_b, diff_.bytes_b)},
          {"error", error_},
          {"delta_bytes", static_cast<int64_t>(diff_.bytes_b) - static_cast<int64_t>(diff_.bytes_a)},
          {"rows", rows},
          {"bottom_up", roots}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
