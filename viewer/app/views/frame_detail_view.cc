#include "views/frame_detail_view.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "format.h"
#include "view_json.h"
#include "views/histogram_chart.h"
#include "memframe/analysis/size_bin_sites.h"
#include "row_filter.h"
#include "widgets/filter_bar.h"
#include "widgets/site_row.h"
#include "widgets/table_keys.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {
enum Column { kFunction, kLocation, kModule, kThread, kAllocations, kBytes, kAllocsPerFrame, kFrames, kColumns };
}  // namespace

bool FrameDetailView::Refresh(ViewContext& ctx) {
  analysis::FrameRange range = ctx.selection.FocusRange(ctx.session.AllFrames());
  RowFilterKey key = FilterKeyOf(ctx.session, ctx.selection);
  if (has_range_ && range.from == range_.from && range.to == range_.to && key == filter_key_) return false;
  filter_key_ = key;
  has_range_ = true;
  locations_.Clear();
  range_ = range;
  // The header and the histogram follow the class filter, as the table does.
  totals_ = TotalsOf(ctx.session, range);
  histogram_ = ctx.session.KeptSizes().Range(range);
  Session& session = ctx.session;
  const bool grouped = ctx.selection.group_by_function;
  const analysis::CallSiteIndex& index = grouped ? session.FunctionGroups().index : session.heap().sites;
  sites_ = analysis::SitesInRange(index, range, session.frames().CountIn(range));
  total_sites_ = sites_.size();
  if (ctx.selection.size_bin) {
    // The figures become those of the bin: who made the blocks of that size.
    RestrictToSizeBin(sites_, analysis::SitesBySizeBin(session.capture().main, range)[*ctx.selection.size_bin],
                      [&](uint32_t id) { return grouped ? session.FunctionGroupOf(id) : id; });
  }
  RowFilter filter(session, ctx.selection);
  std::erase_if(sites_, [&](const analysis::SiteStats& s) { return !filter.Keeps(s.stack_id, Members(ctx, s.stack_id)); });
  std::vector<uint32_t> ids;
  for (const analysis::SiteStats& s : sites_) ids.push_back(s.stack_id);
  labels_.Build(session, ids);
  // A new range usually has other sites: keep the stack only if its site
  // is still there.
  has_selection_ = has_selection_ && std::any_of(sites_.begin(), sites_.end(), [&](const analysis::SiteStats& s) {
                     return s.stack_id == selected_stack_;
                   });
  return true;
}

const std::vector<uint32_t>* FrameDetailView::Members(ViewContext& ctx, uint32_t stack_id) {
  if (!ctx.selection.group_by_function) return nullptr;
  const auto& members = ctx.session.FunctionGroups().members;
  auto it = members.find(stack_id);
  return it != members.end() ? &it->second : nullptr;
}

void FrameDetailView::Draw(ViewContext& ctx) {
  bool changed = Refresh(ctx);
  DrawSummary(ctx);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The sites' names get the most of the width: the histogram reads at 300 px.
  const float left_w = std::max(300.0f, avail.x * 0.30f);

  // The panes lie on the tab's own background: drawing theirs again would
  // only fill the same pixels once more.
  ImGui::BeginChild("detail_left", ImVec2(left_w, 0), false, ImGuiWindowFlags_NoBackground);
  const float chart_h = std::max(150.0f, ImGui::GetContentRegionAvail().y * 0.5f);
  DrawHistogramChart(histogram_, ImVec2(ImGui::GetContentRegionAvail().x, chart_h), &ctx.selection.size_bin);
  DrawBinsTable(ctx);
  ImGui::EndChild();

  ImGui::SameLine();
  ImGui::BeginChild("detail_right", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
  const bool stack_shown = has_selection_ && keys_.stack_open();
  float stack_h = stack_shown ? ImGui::GetContentRegionAvail().y * 0.45f : 0;
  ImGui::BeginChild("detail_sites", ImVec2(0, -stack_h), false, ImGuiWindowFlags_NoBackground);
  DrawFilterBar(ctx.selection, true, sites_.size(), total_sites_);
  DrawSitesTable(ctx, changed);
  ImGui::EndChild();
  if (stack_shown) {
    ImGui::BeginChild("detail_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, selected_stack_, ctx.fonts);
    ImGui::EndChild();
  }
  ImGui::EndChild();
}

void FrameDetailView::DrawSummary(ViewContext& ctx) {
  std::string title = ctx.selection.Describe(ctx.session.frames());
  if (totals_.classes_filtered) title += ", " + ctx.session.class_filter().Describe() + " only";
  ImGui::TextUnformatted(title.c_str());
  ImGui::SameLine(0, 24);
  ImGui::TextColored(palette::kDimText, "allocated");
  ImGui::SameLine();
  ImGui::Text("%s in %s", FormatBytes(totals_.bytes_allocated).c_str(), Plural(totals_.allocations, "block").c_str());
  ImGui::SameLine(0, 18);
  ImGui::TextColored(palette::kDimText, "freed");
  ImGui::SameLine();
  ImGui::Text("%s in %s", FormatBytes(totals_.bytes_freed).c_str(), Plural(totals_.frees, "block").c_str());
  ImGui::SameLine(0, 18);
  ImGui::TextColored(palette::kDimText, totals_.classes_filtered ? "in allocator (every class)" : "in allocator");
  ImGui::SameLine();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::kTime), "%s", FormatDuration(totals_.alloc_time_ns).c_str());
  ImGui::SameLine(0, 18);
  ImGui::TextColored(palette::kDimText, "live at end");
  ImGui::SameLine();
  ImGui::TextUnformatted(FormatBytes(totals_.live_bytes_at_end).c_str());
}

void FrameDetailView::DrawBinsTable(ViewContext& ctx) {
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("bins", 3, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("Allocations", ImGuiTableColumnFlags_WidthStretch, 1);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_WidthStretch, 1);
  ImGui::TableHeadersRow();
  uint64_t max_count = 1, max_bytes = 1;
  for (int b = histogram_.first_bin; b <= histogram_.last_bin; ++b) {
    max_count = std::max(max_count, histogram_.bins[b].allocations);
    max_bytes = std::max(max_bytes, histogram_.bins[b].bytes);
  }
  for (int b = histogram_.first_bin; b <= histogram_.last_bin; ++b) {
    const auto& bin = histogram_.bins[b];
    if (bin.allocations == 0) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    // A click filters the tables by this size (again: every size).
    const bool picked = ctx.selection.size_bin == b;
    if (ImGui::Selectable(FormatSizeBin(b).c_str(), picked, ImGuiSelectableFlags_SpanAllColumns)) {
      if (picked) ctx.selection.size_bin.reset();
      else ctx.selection.size_bin = b;
    }
    ImGui::TableNextColumn();
    BarCell(static_cast<float>(bin.allocations) / max_count, palette::WithAlpha(palette::kBar, 90),
            FormatCount(bin.allocations).c_str());
    ImGui::TableNextColumn();
    BarCell(static_cast<float>(bin.bytes) / max_bytes, palette::WithAlpha(palette::kBytes, 90),
            FormatBytes(bin.bytes).c_str());
  }
  ImGui::EndTable();
}

void FrameDetailView::DrawSitesTable(ViewContext& ctx, bool rows_changed) {
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("sites", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  SetupSiteColumns();
  ImGui::TableSetupColumn("Allocs", ImGuiTableColumnFlags_PreferSortDescending, 70);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 80);
  ImGui::TableSetupColumn("Allocs/frame", ImGuiTableColumnFlags_PreferSortDescending, 90);
  ImGui::TableSetupColumn("Frames", ImGuiTableColumnFlags_PreferSortDescending, 60);
  ImGui::TableHeadersRow();

  Session& session = ctx.session;
  const auto& order = order_.Update(sites_.size(), rows_changed, [&](uint32_t a, uint32_t b, int column) {
    const analysis::SiteStats& x = sites_[a];
    const analysis::SiteStats& y = sites_[b];
    switch (column) {
      case kFunction: return labels_.Label(session, x.stack_id).name.compare(labels_.Label(session, y.stack_id).name);
      case kLocation: return labels_.Label(session, x.stack_id).location.compare(labels_.Label(session, y.stack_id).location);
      case kModule: return CompareModules(labels_.Label(session, x.stack_id), labels_.Label(session, y.stack_id));
      case kThread: return session.ThreadCell(x.stack_id).compare(session.ThreadCell(y.stack_id));
      case kAllocations: return Compare3(x.allocations, y.allocations);
      case kBytes: return Compare3(x.bytes, y.bytes);
      case kAllocsPerFrame: return Compare3(x.allocs_per_frame_median, y.allocs_per_frame_median);
      case kFrames: return Compare3(x.frames_with_allocations, y.frames_with_allocations);
    }
    return 0;
  });
  if (!has_selection_ && !order.empty()) {
    selected_stack_ = sites_[order[0]].stack_id;
    has_selection_ = true;
  }
  if (auto to = keys_.Moved(DisplayIndex(order, [&](uint32_t row) { return sites_[row].stack_id == selected_stack_; }),
                            static_cast<int>(order.size())))
    selected_stack_ = sites_[order[*to]].stack_id;
  name_column_.BeginFrame();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  keys_.Reveal(clipper);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const analysis::SiteStats& s = sites_[order[i]];
      SiteLabel label = labels_.Label(session, s.stack_id);
      const auto* members = Members(ctx, s.stack_id);
      if (members) label.location = locations_.Of(session, s.stack_id, *members);
      const std::string thread = members ? session.ThreadCellOf(*members) : session.ThreadCell(s.stack_id);
      if (SiteRowLeadingCells(name_column_, label, thread, s.stack_id, has_selection_ && selected_stack_ == s.stack_id)) {
        selected_stack_ = s.stack_id;
        has_selection_ = true;
        keys_.OpenStack();
      }
      keys_.AfterRow(i);
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.allocations).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.allocs_per_frame_median).c_str());
      ImGui::TableNextColumn();
      TextRight(std::to_string(s.frames_with_allocations).c_str());
    }
  }
  ImGui::EndTable();
}

nlohmann::json FrameDetailView::Data(ViewContext& ctx) {
  Refresh(ctx);
  nlohmann::json sites = nlohmann::json::array();
  analysis::JsonStackTable stacks;
  for (const auto& s : sites_) {
    const std::vector<uint32_t>* members = Members(ctx, s.stack_id);
    nlohmann::json row =
        analysis::SiteJson(SiteViewOf(ctx.session, s, false, members ? *members : std::vector<uint32_t>{}), stacks);
    // As the row reads: look-alikes told apart.
    const SiteLabel& label = labels_.Label(ctx.session, s.stack_id);
    row["name"] = label.name;
    row["location"] = label.location;
    row["via"] = labels_.Name(s.stack_id).via;
    row["inside"] = labels_.Inside(s.stack_id);
    if (members) row["stack_ids"] = *members;
    sites.push_back(std::move(row));
  }
  nlohmann::json data = {{"view", name()},
          {"range", RangeJson(range_)},
          {"allocations", totals_.allocations},
          {"bytes_allocated", totals_.bytes_allocated},
          {"frees", totals_.frees},
          {"bytes_freed", totals_.bytes_freed},
          {"alloc_time_ns", totals_.alloc_time_ns},
          {"live_bytes_at_end", totals_.live_bytes_at_end},
          {"histogram", {{"allocations", histogram_.allocations}, {"bytes", histogram_.bytes}, {"bins", HistogramJson(histogram_)}}},
          {"filter", FilterJson(ctx.session, ctx.selection)},
          {"sites", sites}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
