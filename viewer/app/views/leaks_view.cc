#include "views/leaks_view.h"

#include <string>
#include <unordered_map>

#include <imgui.h>

#include "memframe/analysis/program_end.h"

#include "format.h"
#include "view_json.h"
#include "widgets/filter_bar.h"
#include "widgets/site_row.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {
enum Column { kFunction, kLocation, kModule, kThread, kBlocks, kBytes, kShare, kColumns };
}  // namespace

void LeaksView::Draw(ViewContext& ctx) {
  const bool changed = Refresh(ctx);
  const analysis::ProgramEnd end = analysis::HowProgramEnded(ctx.session.capture());
  const std::string how = "the program " + analysis::DescribeProgramEnd(end);
  std::string of;  // what the figures are of, when not every leak
  if (ctx.selection.has_picked_range()) of += " allocated in " + ctx.selection.DescribePicked(ctx.session.frames());
  if (!ctx.session.class_filter().KeepsAll()) of += " (" + ctx.session.class_filter().Describe() + " only)";
  if (kept_sites_ == 0) {
    ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.6f, 1), "Every block%s was freed before the end (%s).", of.c_str(),
                       how.c_str());
    return;
  }
  ImGui::Text("%s%s (%s) from %s were live %s", Plural(kept_blocks_, "block").c_str(), of.c_str(),
              FormatBytes(kept_bytes_).c_str(), Plural(kept_sites_, "call site").c_str(),
              analysis::LiveAtEndVerdict(end).c_str());
  if (!ctx.session.capture().complete()) {
    ImGui::SameLine();
    ImGui::TextColored(palette::kWarning, "(the capture did not end cleanly: some of these were freed later)");
  }
  DrawFilterBar(ctx.selection, true, rows_.size(), kept_sites_);
  const bool stack_shown = has_selection_ && keys_.stack_open();
  float stack_height = stack_shown ? ImGui::GetContentRegionAvail().y * 0.42f : 0;
  ImGui::BeginChild("leaks_table", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTable(ctx, changed);
  ImGui::EndChild();
  if (stack_shown) {
    ImGui::BeginChild("leaks_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, selected_stack_, ctx.fonts);
    ImGui::EndChild();
  }
}

bool LeaksView::Refresh(ViewContext& ctx) {
  Session& session = ctx.session;
  RowFilterKey key = FilterKeyOf(session, ctx.selection);
  const analysis::FrameRange range = ctx.selection.PickedRange(session.AllFrames());
  if (has_rows_ && key == filter_key_ && range == range_) return false;
  filter_key_ = key;
  range_ = range;
  has_rows_ = true;
  locations_.Clear();
  rows_.clear();
  members_.clear();
  kept_blocks_ = kept_bytes_ = kept_sites_ = 0;
  std::unordered_map<uint32_t, size_t> row_of;  // group -> row
  for (const analysis::LeakSite& s : session.GroupedLeaks(range).sites) {
    if (!session.Keeps(s.stack_id)) continue;
    kept_blocks_ += s.blocks;
    kept_bytes_ += s.bytes;
    ++kept_sites_;
    const uint32_t id = ctx.selection.group_by_function ? session.FunctionGroupOf(s.stack_id) : s.stack_id;
    auto [it, inserted] = row_of.try_emplace(id, rows_.size());
    if (inserted) {
      rows_.push_back({id, 0, 0});
      members_.emplace_back();
    }
    rows_[it->second].blocks += s.blocks;
    rows_[it->second].bytes += s.bytes;
    members_[it->second].push_back(s.stack_id);
  }
  RowFilter filter(session, ctx.selection);
  size_t kept = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (!filter.Keeps(rows_[i].stack_id, &members_[i])) continue;
    // A row kept in place stays: moving a vector onto itself empties it.
    if (kept != i) {
      rows_[kept] = rows_[i];
      members_[kept] = std::move(members_[i]);
    }
    ++kept;
  }
  rows_.resize(kept);
  members_.resize(kept);
  std::vector<uint32_t> ids;
  for (const analysis::LeakSite& row : rows_) ids.push_back(row.stack_id);
  labels_.Build(session, ids);
  return true;
}

void LeaksView::DrawTable(ViewContext& ctx, bool rows_changed) {
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("leaks", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  SetupSiteColumns();
  ImGui::TableSetupColumn("Blocks", ImGuiTableColumnFlags_PreferSortDescending, 80);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 90);
  ImGui::TableSetupColumn("Share of bytes", ImGuiTableColumnFlags_PreferSortDescending, 170);
  ImGui::TableHeadersRow();

  Session& session = ctx.session;
  const auto& rows = rows_;
  const auto& order = order_.Update(rows.size(), rows_changed, [&](uint32_t a, uint32_t b, int column) {
    const analysis::LeakSite& x = rows[a];
    const analysis::LeakSite& y = rows[b];
    switch (column) {
      case kFunction: return labels_.Label(session, x.stack_id).name.compare(labels_.Label(session, y.stack_id).name);
      case kLocation: return labels_.Label(session, x.stack_id).location.compare(labels_.Label(session, y.stack_id).location);
      case kModule: return CompareModules(labels_.Label(session, x.stack_id), labels_.Label(session, y.stack_id));
      case kThread: return session.ThreadCell(x.stack_id).compare(session.ThreadCell(y.stack_id));
      case kBlocks: return Compare3(x.blocks, y.blocks);
      case kBytes:
      case kShare: return Compare3(x.bytes, y.bytes);
    }
    return 0;
  });
  if (!has_selection_ && !order.empty()) {
    selected_stack_ = rows[order[0]].stack_id;
    has_selection_ = true;
  }
  if (auto to = keys_.Moved(DisplayIndex(order, [&](uint32_t row) { return rows[row].stack_id == selected_stack_; }),
                            static_cast<int>(order.size())))
    selected_stack_ = rows[order[*to]].stack_id;

  name_column_.BeginFrame();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  keys_.Reveal(clipper);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const analysis::LeakSite& s = rows[order[i]];
      SiteLabel label = labels_.Label(session, s.stack_id);
      if (members_[order[i]].size() > 1) label.location = locations_.Of(session, s.stack_id, members_[order[i]]);
      if (SiteRowLeadingCells(name_column_, label, session.ThreadCellOf(members_[order[i]]), s.stack_id,
                              has_selection_ && selected_stack_ == s.stack_id)) {
        selected_stack_ = s.stack_id;
        has_selection_ = true;
        keys_.OpenStack();
      }
      keys_.AfterRow(i);
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.blocks).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes).c_str());
      ImGui::TableNextColumn();
      float share = kept_bytes_ ? static_cast<float>(s.bytes) / kept_bytes_ : 0;
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.1f%%", share * 100);
      BarCell(share, palette::WithAlpha(palette::kSpike, 120), pct);
    }
  }
  ImGui::EndTable();
}

nlohmann::json LeaksView::Data(ViewContext& ctx) {
  Refresh(ctx);
  nlohmann::json rows = nlohmann::json::array();
  analysis::JsonStackTable stacks;
  const analysis::FrameRange all = ctx.session.AllFrames();
  const uint64_t all_frames = ctx.session.frames().CountIn(all);
  for (size_t i = 0; i < rows_.size(); ++i) {
    const analysis::LeakSite& s = rows_[i];
    // The site's figures over the whole capture, as the leaks report's rows.
    const analysis::SiteHistory* history = ctx.session.SiteGroups().index.Find(s.stack_id);
    if (!history) history = ctx.session.heap().sites.Find(s.stack_id);
    analysis::SiteStats stats = history ? analysis::SummarizeSite(*history, all, all_frames) : analysis::SiteStats{};
    stats.stack_id = s.stack_id;
    nlohmann::json row = analysis::LeakJson(SiteViewOf(ctx.session, stats, false, members_[i]), s.blocks, s.bytes, stacks);
    // As the row reads: look-alikes told apart.
    const SiteLabel& label = labels_.Label(ctx.session, s.stack_id);
    row["name"] = label.name;
    row["location"] = label.location;
    row["via"] = labels_.Name(s.stack_id).via;
    row["inside"] = labels_.Inside(s.stack_id);
    row["stack_ids"] = members_[i];
    rows.push_back(std::move(row));
  }
  const analysis::ProgramEnd end = analysis::HowProgramEnded(ctx.session.capture());
  nlohmann::json data = {{"view", name()},
          {"range", ctx.selection.has_picked_range() ? RangeJson(range_) : analysis::json(nullptr)},
          {"total_blocks", kept_blocks_},
          {"total_bytes", kept_bytes_},
          {"are_leaks", end.LiveBlocksAreLeaks()},
          {"program_end", analysis::DescribeProgramEnd(end)},
          {"filter", FilterJson(ctx.session, ctx.selection)},
          {"rows", rows}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
