#include "views/hidden_view.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "format.h"
#include "look_alike_labels.h"
#include "view_json.h"
#include "row_filter.h"
#include "widgets/filter_bar.h"
#include "widgets/judged_frames_line.h"
#include "widgets/phase_picker.h"
#include "widgets/site_row.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {

enum Column { kFunction, kLocation, kModule, kThread, kFrames, kAllocsPerFrame, kBytesPerFrame, kAllocations, kBytes, kSizes, kColumns };

}  // namespace

bool HiddenView::Refresh(ViewContext& ctx) {
  // Without a range picked, one steady phase; the whole capture's ended
  // frames (as `memframe report hidden` takes them) only when asked.
  JudgedScope scope = JudgedScopeOf(ctx.session, ctx.selection, ctx.session.CompleteFrames());
  RowFilterKey key = FilterKeyOf(ctx.session, ctx.selection);
  if (has_rows_ && scope == scope_ && rows_percent_ == min_percent_ && key == filter_key_) return false;
  filter_key_ = key;
  scope_ = std::move(scope);
  rows_percent_ = min_percent_;
  // Grouped as the CLI groups them, so the table and `memframe report hidden`
  // list the same sites with the same figures.
  // By function: coarser groups, each a union of the report's.
  const analysis::GroupedSites& groups =
      ctx.selection.group_by_function ? ctx.session.FunctionGroups() : ctx.session.SiteGroups();
  const analysis::JudgedFrames& judged = scope_.judged;
  rows_ = analysis::FindHiddenSites(groups.index, judged.ranges, judged.count, min_percent_ / 100.0);
  total_rows_ = rows_.size();
  RowFilter filter(ctx.session, ctx.selection);
  std::erase_if(rows_, [&](const analysis::SiteStats& s) {
    auto it = groups.members.find(s.stack_id);
    return !filter.Keeps(s.stack_id, it != groups.members.end() ? &it->second : nullptr);
  });
  // The report's order: the game's own sites first, each part in the
  // hidden ranking.
  std::stable_partition(rows_.begin(), rows_.end(),
                        [&](const analysis::SiteStats& s) { return ctx.session.Label(s.stack_id).from_game; });
  std::vector<const std::vector<analysis::SourceFrame>*> stacks;
  stacks.reserve(rows_.size());
  for (const analysis::SiteStats& s : rows_) stacks.push_back(&ctx.session.Stack(s.stack_id));
  names_ = analysis::NameLookAlikes(stacks);
  has_rows_ = true;
  return true;
}

std::vector<uint32_t> HiddenView::StackIds(ViewContext& ctx, uint32_t stack_id) {
  const auto& members =
      ctx.selection.group_by_function ? ctx.session.FunctionGroups().members : ctx.session.SiteGroups().members;
  auto it = members.find(stack_id);
  return it != members.end() ? it->second : std::vector<uint32_t>{stack_id};
}

SiteLabel HiddenView::RowLabel(ViewContext& ctx, size_t i) const {
  // The whole via is in the tooltip.
  return WithLookAlike(ctx.session.Label(rows_[i].stack_id), names_[i]);
}

void HiddenView::Draw(ViewContext& ctx) {
  bool changed = Refresh(ctx);
  if (DrawPhasePicker(ctx.session, ctx.selection, scope_)) changed = Refresh(ctx) || changed;
  ImGui::SetNextItemWidth(200);
  ImGui::SliderInt("##percent", &min_percent_, 5, 100, "in \xE2\x89\xA5 %d%% of frames", ImGuiSliderFlags_AlwaysClamp);
  changed = Refresh(ctx) || changed;
  ImGui::SameLine();
  ImGui::TextColored(palette::kDimText, "%zu call sites allocate in at least %d%% of the frames judged",
                     rows_.size(), min_percent_);
  ImGui::SameLine(0, 16);
  ImGui::Checkbox("Game's code first", &game_first_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The sites the game's own code led to (a game frame on the stack) lead the table, whatever "
                      "the sort, as in `memframe report hidden`");

  DrawFilterBar(ctx.selection, true, rows_.size(), total_rows_);
  const bool stack_shown = has_selection_ && keys_.stack_open();
  float stack_height = stack_shown ? ImGui::GetContentRegionAvail().y * 0.42f : 0;
  ImGui::BeginChild("hidden_table", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTable(ctx, changed);
  ImGui::EndChild();
  if (stack_shown) {
    ImGui::BeginChild("hidden_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, selected_stack_, ctx.fonts);
    ImGui::EndChild();
  }
}

void HiddenView::DrawTable(ViewContext& ctx, bool rows_changed) {
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_Hideable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("hidden", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  SetupSiteColumns();
  ImGui::TableSetupColumn("Frames", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending |
                                        ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Allocs/frame", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Bytes/frame", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Allocations", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableSetupColumn("Sizes", ImGuiTableColumnFlags_PreferSortDescending);
  ImGui::TableHeadersRow();

  Session& session = ctx.session;
  rows_changed = rows_changed || rows_game_first_ != game_first_;
  rows_game_first_ = game_first_;
  RowFirst game = nullptr;
  if (game_first_) game = [&](uint32_t row) { return session.Label(rows_[row].stack_id).from_game; };
  const auto& order = order_.Update(rows_.size(), rows_changed, [&](uint32_t a, uint32_t b, int column) {
    const analysis::SiteStats& x = rows_[a];
    const analysis::SiteStats& y = rows_[b];
    switch (column) {
      case kFunction: return session.Label(x.stack_id).name.compare(session.Label(y.stack_id).name);
      case kLocation: return names_[a].location.compare(names_[b].location);
      case kModule: return CompareModules(session.Label(x.stack_id), session.Label(y.stack_id));
      case kThread: return session.ThreadCell(x.stack_id, true).compare(session.ThreadCell(y.stack_id, true));
      case kFrames: return Compare3(x.frames_with_allocations, y.frames_with_allocations);
      case kAllocsPerFrame: return Compare3(x.allocs_per_frame_median, y.allocs_per_frame_median);
      case kBytesPerFrame: return Compare3(x.bytes_per_frame_median, y.bytes_per_frame_median);
      case kAllocations: return Compare3(x.allocations, y.allocations);
      case kBytes: return Compare3(x.bytes, y.bytes);
      case kSizes: return Compare3(x.size_max, y.size_max);
    }
    return 0;
  }, game);
  if (!has_selection_ && !order.empty()) {
    // Something useful below the table from the first frame on.
    selected_stack_ = rows_[order[0]].stack_id;
    has_selection_ = true;
  }
  if (auto to = keys_.Moved(DisplayIndex(order, [&](uint32_t row) { return rows_[row].stack_id == selected_stack_; }),
                            static_cast<int>(order.size())))
    selected_stack_ = rows_[order[*to]].stack_id;

  name_column_.BeginFrame();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  keys_.Reveal(clipper);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const analysis::SiteStats& s = rows_[order[i]];
      const SiteLabel label = RowLabel(ctx, order[i]);
      const std::string& via = names_[order[i]].via;
      std::string whole = via.empty() ? "" : ctx.session.Label(s.stack_id).name + "\n  <- " + via;
      if (SiteRowLeadingCells(name_column_, label, ctx.session.ThreadCell(s.stack_id, true), s.stack_id,
                              has_selection_ && selected_stack_ == s.stack_id, whole)) {
        selected_stack_ = s.stack_id;
        has_selection_ = true;
        keys_.OpenStack();
      }
      keys_.AfterRow(i);
      ImGui::TableNextColumn();
      float fraction = s.frames_in_range ? static_cast<float>(s.frames_with_allocations) / s.frames_in_range : 0;
      std::string pct = FormatShare(s.frames_with_allocations, s.frames_in_range);
      BarCell(fraction, palette::WithAlpha(palette::kBar, 110), pct.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%llu of %llu frames", static_cast<unsigned long long>(s.frames_with_allocations),
                          static_cast<unsigned long long>(s.frames_in_range));
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.allocs_per_frame_median).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes_per_frame_median).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.allocations).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes).c_str());
      ImGui::TableNextColumn();
      std::string sizes = s.size_min == s.size_max ? FormatBytes(s.size_min)
                                                   : FormatBytes(s.size_min) + "\xE2\x80\x93" + FormatBytes(s.size_max);
      TextRight(sizes.c_str());
    }
  }
  ImGui::EndTable();
}

nlohmann::json HiddenView::Data(ViewContext& ctx) {
  Refresh(ctx);
  nlohmann::json rows = nlohmann::json::array();
  analysis::JsonStackTable stacks;
  // Without a window the order is the report's (the game's own sites
  // first, then the analysis' ranking), which is also the default sort
  // (frames descending, ties kept in ranking order, the game's first).
  for (size_t i = 0; i < rows_.size(); ++i) {
    nlohmann::json row = SiteStatsJson(ctx.session, rows_[i], stacks, true);
    row["location"] = names_[i].location;
    row["via"] = names_[i].via;
    row["stack_ids"] = StackIds(ctx, rows_[i].stack_id);
    rows.push_back(std::move(row));
  }
  nlohmann::json data = {{"view", name()},
                         {"range", RangeJson(scope_.range)},
                         {"scope", JudgedScopeJson(scope_)},
                         {"judged_frames", JudgedFramesJson(scope_.judged)},
                         {"min_fraction", min_percent_ / 100.0},
                         {"filter", FilterJson(ctx.session, ctx.selection)},
                         {"rows", rows}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
