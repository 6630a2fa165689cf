#include "views/allocators_view.h"

#include <string>

#include <imgui.h>

#include "format.h"
#include "view_json.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

namespace {

std::string OrDash(uint64_t bytes) { return bytes ? FormatBytes(bytes) : "-"; }

// "heap 0x4a0000 created at LoadLevel" for a private heap, else the name.
std::string Title(ViewContext& ctx, const analysis::AllocatorInfo& info) {
  return analysis::AllocatorTitle(info, info.stack_id ? ctx.session.Label(info.stack_id).function : "");
}

}  // namespace

const std::vector<analysis::AllocatorUsage>& AllocatorsView::Usage(ViewContext& ctx) {
  if (!usage_) {
    usage_ = analysis::AnalyzeAllocators(ctx.session.capture().main);
    plot_of_ = SIZE_MAX;
  }
  return *usage_;
}

void AllocatorsView::Draw(ViewContext& ctx) {
  const auto& usage = Usage(ctx);
  if (usage.empty()) {
    ImGui::TextWrapped(
        "The program declared no allocator of its own and created no private heap. A game names its arenas, "
        "pools and rings with memframe_allocator_declare (agent/include/memframe/annotate.h) to see them here; "
        "the heaps a Windows game creates with HeapCreate are shown by themselves.");
    return;
  }
  if (selected_ >= usage.size()) selected_ = 0;
  ImGui::BeginChild("allocator_table", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.45f), false,
                    ImGuiWindowFlags_NoBackground);
  DrawTable(ctx, usage);
  ImGui::EndChild();
  DrawSelected(ctx, usage[selected_]);
}

void AllocatorsView::DrawTable(ViewContext& ctx, const std::vector<analysis::AllocatorUsage>& usage) {
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("allocators", 11, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Allocator", ImGuiTableColumnFlags_WidthStretch);
  for (const char* title : {"Kind", "Capacity", "Backing block", "High-water", "Occupancy", "Blocks/frame",
                            "Bytes/frame", "Releases/frame", "Live at end", "Held past release"})
    ImGui::TableSetupColumn(title, ImGuiTableColumnFlags_WidthFixed, 95);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < usage.size(); ++i) {
    const analysis::AllocatorUsage& u = usage[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(Title(ctx, u.info).c_str(), selected_ == i, ImGuiSelectableFlags_SpanAllColumns))
      selected_ = i;
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(analysis::AllocatorKindName(u.info.kind));
    ImGui::TableNextColumn();
    TextRight(OrDash(u.info.capacity).c_str());
    ImGui::TableNextColumn();
    TextRight(OrDash(u.backing_block).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatBytes(u.high_water).c_str());
    ImGui::TableNextColumn();
    TextRight(u.info.capacity ? FormatPercent(u.occupancy()).c_str() : "-");
    ImGui::TableNextColumn();
    TextRight(FormatCount(u.median_blocks_per_frame).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatBytes(u.median_bytes_per_frame).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatCount(u.median_releases_per_frame).c_str());
    ImGui::TableNextColumn();
    TextRight((FormatCount(u.live_blocks_end) + " (" + FormatBytes(u.live_bytes_end) + ")").c_str());
    ImGui::TableNextColumn();
    if (u.outlived.empty())
      TextRight("0");
    else
      ImGui::TextColored(palette::kError, "%zu", u.outlived.size());
  }
  ImGui::EndTable();
}

void AllocatorsView::DrawSelected(ViewContext& ctx, const analysis::AllocatorUsage& u) {
  if (plot_of_ != selected_) {
    plot_of_ = selected_;
    plot_.clear();
    for (const analysis::AllocatorFrame& f : u.frames) plot_.push_back(static_cast<float>(f.high_water));
  }
  const uint64_t first = u.frames.empty() ? 0 : u.frames.front().frame;
  const uint64_t last = u.frames.empty() ? 0 : u.frames.back().frame;
  if (u.info.kind == analysis::AllocatorKind::kHeap) {
    // A private heap: its life, and what it held.
    ImGui::Text("%s: created in frame %llu on thread %u, %s; %s (%s) handed out, %s (%s) live at the end",
                Title(ctx, u.info).c_str(), static_cast<unsigned long long>(u.created_frame), u.info.thread_id,
                u.destroyed ? ("destroyed in frame " + std::to_string(u.destroyed_frame)).c_str() : "never destroyed",
                Plural(u.blocks, "block").c_str(), FormatBytes(u.bytes).c_str(),
                Plural(u.live_blocks_end, "block").c_str(), FormatBytes(u.live_bytes_end).c_str());
  }
  ImGui::Text("%s: bytes in use at their highest in each frame from frame %llu to %llu (%s handed out, %s releases)",
              u.info.name.c_str(), static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
              Plural(u.blocks, "block").c_str(), FormatCount(u.releases).c_str());
  // Scaled to the high-water, so that an allocator far below its capacity
  // still shows its frames' shape (the table gives the occupancy).
  const float scale = static_cast<float>(u.high_water ? u.high_water : 1);
  const std::string overlay = "top: high-water " + FormatBytes(u.high_water) + " (capacity " + OrDash(u.info.capacity) + ")";
  // An explicit width: Debian's Dear ImGui (1.86) takes a negative plot
  // width as it is, and draws nothing.
  ImGui::PlotHistogram("##in_use", plot_.data(), static_cast<int>(plot_.size()), 0, overlay.c_str(), 0, scale,
                       ImVec2(ImGui::GetContentRegionAvail().x, 110));
  if (u.outlived.empty()) return;
  ImGui::TextColored(palette::kError, "Blocks given back after %s had released them (held past the release):",
                     u.info.name.c_str());
  for (const analysis::OutlivedBlock& b : u.outlived) {
    const SiteLabel& label = ctx.session.Label(b.alloc_stack);
    ImGui::BulletText("%s allocated in frame %llu at %s %s, released in frame %llu, given back in frame %llu",
                      FormatBytes(b.size).c_str(), static_cast<unsigned long long>(b.alloc_frame),
                      label.function.c_str(), label.location.c_str(),
                      static_cast<unsigned long long>(b.release_frame), static_cast<unsigned long long>(b.free_frame));
  }
}

nlohmann::json AllocatorsView::Data(ViewContext& ctx) {
  nlohmann::json rows = nlohmann::json::array();
  analysis::JsonStackTable stacks;
  for (const analysis::AllocatorUsage& u : Usage(ctx)) {
    std::vector<analysis::SiteView> sites;
    for (const analysis::OutlivedBlock& b : u.outlived) {
      analysis::SiteStats site;
      site.stack_id = b.alloc_stack;
      sites.push_back(SiteViewOf(ctx.session, site));
    }
    analysis::SiteStats created;
    created.stack_id = u.info.stack_id;
    nlohmann::json row = analysis::AllocatorJson(u, Title(ctx, u.info), SiteViewOf(ctx.session, created), sites, stacks);
    // What the view draws beside the report's figures: the high-water mark of each frame.
    nlohmann::json high_water = nlohmann::json::array();
    for (const analysis::AllocatorFrame& f : u.frames) high_water.push_back(f.high_water);
    row["high_water_per_frame"] = std::move(high_water);
    rows.push_back(std::move(row));
  }
  nlohmann::json data = {{"view", name()}, {"rows", std::move(rows)}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
