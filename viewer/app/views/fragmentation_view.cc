#include "views/fragmentation_view.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "format.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/ratios.h"
#include "widgets/stack_panel.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

namespace {

std::string Percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100);
  return text;
}

ImU32 ToU32(analysis::Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }

// With nothing picked, the last frame of steady play (the last ended frame
// when there is none): the heap as the game runs it. The capture's last
// frame is the teardown after the last present, the heap half freed.
uint64_t DefaultFrame(const analysis::FrameTable& table) {
  const std::vector<analysis::Phase> phases = analysis::FindPhases(table);
  for (auto it = phases.rbegin(); it != phases.rend(); ++it)
    if (it->kind == analysis::PhaseKind::kSteady) return it->frames.to;
  return table.Complete().to;
}

nlohmann::json TotalsJson(const RegionTotals& t) {
  return {{"regions", t.regions}, {"span", t.span}, {"blocks", t.blocks}, {"live_bytes", t.live_bytes},
          {"holes", t.holes}, {"free_bytes", t.free_bytes}, {"largest_free_gap", t.largest_free_gap},
          {"fragmentation", t.fragmentation}, {"dense", analysis::Share(t.live_bytes, t.span)}};
}

nlohmann::json LocalityJson(ViewContext& ctx, const std::vector<analysis::SiteLocality>& sites) {
  nlohmann::json rows = nlohmann::json::array();
  for (const analysis::SiteLocality& l : sites) {
    const SiteLabel& label = ctx.session.Label(l.stack_id);
    rows.push_back({{"stack_id", l.stack_id}, {"function", label.function}, {"location", label.location},
                    {"blocks", l.blocks}, {"bytes", l.bytes}, {"pages", l.pages}, {"cache_lines", l.cache_lines},
                    {"packed_pages", l.packed_pages}, {"span", l.span}, {"per_frame", l.per_frame},
                    {"scattered", l.scattered}});
  }
  return rows;
}

}  // namespace

void FragmentationView::Refresh(ViewContext& ctx) {
  const bool picked = ctx.selection.focus != Selection::Focus::kAll;
  uint64_t frame = picked ? ctx.selection.FocusRange(ctx.session.AllFrames()).to : DefaultFrame(ctx.session.frames());
  if (has_space_ && frame == frame_) return;
  frame_ = frame;
  const analysis::HeapAnalysis& heap = ctx.session.heap();
  const analysis::LiveSet live = heap.live_sets.AtFrame(ctx.session.capture().main, frame);
  space_ = AddressSpaceAt(ctx.session, frame, live);
  regions_ = analysis::LayoutRegions(space_);
  heap_ = SumRegions(regions_, false);
  mapped_ = SumRegions(regions_, true);
  locality_ = analysis::AnalyzeLocality(live, heap.sites, heap.frames.frames.size());
  canvas_.Reset();
  selected_region_.reset();
  has_space_ = true;
}

void FragmentationView::Draw(ViewContext& ctx) {
  Refresh(ctx);
  // Figures on the left, the map on the right, each filling the height.
  ImGui::BeginChild("figures", ImVec2(440, 0), false, ImGuiWindowFlags_NoBackground);
  DrawFigures(ctx);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginGroup();
  DrawLegend();
  if (regions_.empty()) {
    ImGui::TextColored(palette::kDimText, "Nothing is live at the end of frame %llu.",
                       static_cast<unsigned long long>(frame_));
  } else {
    ImGui::BeginChild("map", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    canvas_.Draw(ctx.session, space_, regions_, coloring_);
    ImGui::EndChild();
  }
  ImGui::EndGroup();
}

void FragmentationView::DrawFigures(ViewContext& ctx) {
  ImGui::Text("End of frame %llu", static_cast<unsigned long long>(frame_));
  // The headline says what the map shows: how much of the heap's span is
  // live, and how the rest lies (one large gap or many small ones).
  if (heap_.span) {
    ImGui::TextWrapped("Heap %s dense: %s live in a %s span; %s free in %s holes, the largest %s (%s of the free)",
                       Percent(analysis::Share(heap_.live_bytes, heap_.span)).c_str(),
                       FormatBytes(heap_.live_bytes).c_str(), FormatBytes(heap_.span).c_str(),
                       FormatBytes(heap_.free_bytes).c_str(), FormatCount(heap_.holes).c_str(),
                       FormatBytes(heap_.largest_free_gap).c_str(),
                       Percent(analysis::Share(heap_.largest_free_gap, heap_.free_bytes)).c_str());
  }
  auto figure = [](const char* label, const std::string& value) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(palette::kDimText, "%s", label);
    ImGui::TableNextColumn();
    TextRight(value.c_str());
  };
  if (ImGui::BeginTable("totals", 3, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    // The heap column is what a game's allocator controls; mappings are
    // what mmap handed out (stacks, driver buffers, big blocks).
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("Heap", ImGuiTableColumnFlags_WidthStretch, 1);
    ImGui::TableSetupColumn("Mappings", ImGuiTableColumnFlags_WidthStretch, 1);
    ImGui::TableHeadersRow();
    auto both = [&](const char* label, const std::string& heap, const std::string& mapped) {
      figure(label, heap);
      ImGui::TableNextColumn();
      TextRight(mapped.c_str());
    };
    both("Regions", FormatCount(heap_.regions), FormatCount(mapped_.regions));
    both("Span", FormatBytes(heap_.span), FormatBytes(mapped_.span));
    both("Live", FormatBytes(heap_.live_bytes), FormatBytes(mapped_.live_bytes));
    both("Blocks", FormatCount(heap_.blocks), FormatCount(mapped_.blocks));
    both("Holes", FormatCount(heap_.holes), FormatCount(mapped_.holes));
    both("Free in holes", FormatBytes(heap_.free_bytes), FormatBytes(mapped_.free_bytes));
    both("Largest free gap", FormatBytes(heap_.largest_free_gap), FormatBytes(mapped_.largest_free_gap));
    both("Dense (live / span)", Percent(analysis::Share(heap_.live_bytes, heap_.span)),
         Percent(analysis::Share(mapped_.live_bytes, mapped_.span)));
    // Of the free bytes, not of the heap: a heap 97% dense whose 3% free
    // lies in many small holes reads 70% here.
    both("Free split", Percent(heap_.fragmentation), Percent(mapped_.fragmentation));
    ImGui::EndTable();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A hole is a gap over %llu B between live blocks. Free split = 1 - largest hole / free in holes\n"
                      "(the 'frag' of memframe report fragmentation): how scattered the free bytes are, not how\n"
                      "much is free; 0%% when they are one gap.",
                      static_cast<unsigned long long>(analysis::kHoleSlack));
  ImGui::Spacing();
  DrawLocality(ctx);
  ImGui::Spacing();
  const float stack_height = canvas_.clicked_stack() ? ImGui::GetContentRegionAvail().y * 0.45f : 0;
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("regions", 4, flags, ImVec2(0, -stack_height))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Region", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Span", 0, 70);
    ImGui::TableSetupColumn("Live", 0, 70);
    ImGui::TableSetupColumn("Split", 0, 48);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(regions_.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const analysis::RegionLayout& r = regions_[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        char label[64];
        std::snprintf(label, sizeof label, "%s 0x%llx##%d", r.mapped ? "mmap" : "heap",
                      static_cast<unsigned long long>(r.start), i);
        if (ImGui::Selectable(label, selected_region_ == static_cast<size_t>(i), ImGuiSelectableFlags_SpanAllColumns)) {
          selected_region_ = i;
          canvas_.ShowRegion(i);
        }
        ImGui::TableNextColumn();
        TextRight(FormatBytes(r.span()).c_str());
        ImGui::TableNextColumn();
        TextRight(FormatBytes(r.live_bytes).c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s blocks, %s holes (%s free), largest gap %s", FormatCount(r.blocks).c_str(),
                            FormatCount(r.holes).c_str(), FormatBytes(r.free_bytes).c_str(),
                            FormatBytes(r.largest_free_gap).c_str());
        ImGui::TableNextColumn();
        TextRight(Percent(r.fragmentation).c_str());
      }
    }
    ImGui::EndTable();
  }
  if (auto stack = canvas_.clicked_stack()) {
    ImGui::BeginChild("block_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, *stack, ctx.fonts);
    ImGui::EndChild();
  }
}

void FragmentationView::DrawLocality(ViewContext& ctx) {
  constexpr size_t kShown = 6;
  if (locality_.empty() || !ImGui::CollapsingHeader("Locality per site", ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("locality", 4, flags)) return;
  ImGui::TableSetupColumn("Site", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Blocks", 0, 55);
  ImGui::TableSetupColumn("Pages", 0, 70);
  ImGui::TableSetupColumn("Lines/blk", 0, 62);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < locality_.size() && i < kShown; ++i) {
    const analysis::SiteLocality& l = locality_[i];
    const SiteLabel& label = ctx.session.Label(l.stack_id);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const std::string name = label.function.empty() ? "(no stack)" : label.function;
    if (l.scattered)
      ImGui::TextColored(palette::kError, "%s", name.c_str());
    else
      ImGui::TextUnformatted(name.c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s %s\n%s in %s blocks over a span of %s%s", name.c_str(), label.location.c_str(),
                        FormatBytes(l.bytes).c_str(), FormatCount(l.blocks).c_str(), FormatBytes(l.span).c_str(),
                        l.scattered ? "\nAllocates every frame and spreads its objects: a pool would keep them "
                                      "together" : "");
    ImGui::TableNextColumn();
    TextRight(FormatCount(l.blocks).c_str());
    ImGui::TableNextColumn();
    TextRight((FormatCount(l.pages) + " / " + FormatCount(l.packed_pages)).c_str());
    ImGui::TableNextColumn();
    char lines[16];
    std::snprintf(lines, sizeof lines, "%.2f", l.lines_per_block());
    TextRight(lines);
  }
  ImGui::EndTable();
}

void FragmentationView::DrawLegend() {
  if (ImGui::RadioButton("Colour by age", coloring_ == analysis::MapColoring::kAge)) coloring_ = analysis::MapColoring::kAge;
  ImGui::SameLine();
  if (ImGui::RadioButton("by call site", coloring_ == analysis::MapColoring::kSite)) coloring_ = analysis::MapColoring::kSite;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight();
  auto swatch = [&](ImU32 colour, const char* text) {
    ImGui::SameLine(0, 16);
    ImVec2 p = ImGui::GetCursorScreenPos();
    draw->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + h - 4, p.y + h - 1), colour);
    ImGui::Dummy(ImVec2(h - 2, h));
    ImGui::SameLine();
    ImGui::TextColored(palette::kDimText, "%s", text);
  };
  if (coloring_ == analysis::MapColoring::kAge) {
    // The age ramp as BlockColor paints it: the capture's first frame
    // (oldest) to this frame.
    const uint64_t first = std::min(space_.first_frame, frame_);
    ImGui::SameLine(0, 16);
    ImGui::TextColored(palette::kDimText, "frame %llu", static_cast<unsigned long long>(first));
    ImGui::SameLine();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const int steps = 24;
    for (int i = 0; i < steps; ++i) {
      analysis::LiveBlock b;
      b.frame = first + static_cast<uint64_t>(static_cast<unsigned __int128>(frame_ - first) * i / (steps - 1));
      draw->AddRectFilled(ImVec2(p.x + i * 5.0f, p.y + 3), ImVec2(p.x + i * 5.0f + 5, p.y + h - 1),
                          ToU32(analysis::BlockColor(b, frame_, coloring_, first)));
    }
    ImGui::Dummy(ImVec2(steps * 5.0f, h));
    ImGui::SameLine();
    ImGui::TextColored(palette::kDimText, "frame %llu", static_cast<unsigned long long>(frame_));
  } else {
    ImGui::SameLine(0, 16);
    ImGui::TextColored(palette::kDimText, "one colour per call site");
  }
  swatch(ToU32(analysis::kHeapFreeColor), "heap hole");
  swatch(ToU32(analysis::kMappedFreeColor), "mapping, no block seen");
  ImGui::TextColored(palette::kDimText, "1 px = %s   wheel: zoom   drag: pan   double-click: fit   click a block: its stack",
                     FormatBytes(canvas_.bytes_per_pixel()).c_str());
}

nlohmann::json FragmentationView::Data(ViewContext& ctx) {
  Refresh(ctx);
  const analysis::FrameStats* frame_stats = ctx.session.frames().Find(frame_);
  nlohmann::json regions = nlohmann::json::array();
  for (const analysis::RegionLayout& r : regions_) {
    regions.push_back({{"kind", r.mapped ? "mapped" : "heap"}, {"start", r.start}, {"end", r.end}, {"span", r.span()},
                       {"blocks", r.blocks}, {"live_bytes", r.live_bytes}, {"holes", r.holes},
                       {"free_bytes", r.free_bytes}, {"largest_free_gap", r.largest_free_gap},
                       {"fragmentation", r.fragmentation}});
  }
  return {{"view", name()},
          {"frame", frame_},
          {"heap", TotalsJson(heap_)},
          {"mapped", TotalsJson(mapped_)},
          {"regions", regions},
          {"locality", LocalityJson(ctx, locality_)},
          {"live_bytes_at_frame", frame_stats ? frame_stats->live_bytes : 0}};
}

}  // namespace memframe::viewer
