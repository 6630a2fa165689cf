#include "views/leaks_view.h"

#include <string>

#include <imgui.h>

#include "format.h"
#include "view_json.h"
#include "widgets/site_row.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {
enum Column { kFunction, kLocation, kModule, kBlocks, kBytes, kShare, kColumns };
}  // namespace

void LeaksView::Draw(ViewContext& ctx) {
  const analysis::LeakReport& leaks = ctx.session.heap().leaks;
  if (leaks.sites.empty()) {
    ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.6f, 1),
                       "No leaks: every block was freed before the capture ended.");
    return;
  }
  ImGui::Text("%s blocks, %s still live when the capture ended, from %zu call sites",
              FormatCount(leaks.total_blocks).c_str(), FormatBytes(leaks.total_bytes).c_str(), leaks.sites.size());
  if (!ctx.session.capture().complete()) {
    ImGui::SameLine();
    ImGui::TextColored(palette::kWarning, "(the capture did not end cleanly: some of these were freed later)");
  }
  float stack_height = has_selection_ ? ImGui::GetContentRegionAvail().y * 0.42f : 0;
  ImGui::BeginChild("leaks_table", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTable(ctx);
  ImGui::EndChild();
  if (has_selection_) {
    ImGui::BeginChild("leaks_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, selected_stack_, ctx.fonts);
    ImGui::EndChild();
  }
}

void LeaksView::DrawTable(ViewContext& ctx) {
  const analysis::LeakReport& leaks = ctx.session.heap().leaks;
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("leaks", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  SetupSiteColumns(150);
  ImGui::TableSetupColumn("Blocks", ImGuiTableColumnFlags_PreferSortDescending, 80);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 90);
  ImGui::TableSetupColumn("Share of leaked bytes", ImGuiTableColumnFlags_PreferSortDescending, 170);
  ImGui::TableHeadersRow();

  Session& session = ctx.session;
  // Leaks never change after loading: only the class filter and the user's
  // sort change the rows.
  const bool rows_changed = !has_rows_ || rows_classes_ != session.classes_generation();
  if (rows_changed) {
    rows_.clear();
    for (const analysis::LeakSite& s : leaks.sites) {
      if (session.Keeps(s.stack_id)) rows_.push_back(s);
    }
    rows_classes_ = session.classes_generation();
    has_rows_ = true;
  }
  const auto& rows = rows_;
  const auto& order = order_.Update(rows.size(), rows_changed, [&](uint32_t a, uint32_t b, int column) {
    const analysis::LeakSite& x = rows[a];
    const analysis::LeakSite& y = rows[b];
    switch (column) {
      case kFunction: return session.Label(x.stack_id).name.compare(session.Label(y.stack_id).name);
      case kLocation: return session.Label(x.stack_id).location.compare(session.Label(y.stack_id).location);
      case kModule: return CompareModules(session.Label(x.stack_id), session.Label(y.stack_id));
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

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const analysis::LeakSite& s = rows[order[i]];
      const SiteLabel& label = session.Label(s.stack_id);
      if (SiteRowLeadingCells(label, s.stack_id, has_selection_ && selected_stack_ == s.stack_id)) {
        selected_stack_ = s.stack_id;
        has_selection_ = true;
      }
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.blocks).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes).c_str());
      ImGui::TableNextColumn();
      float share = leaks.total_bytes ? static_cast<float>(s.bytes) / leaks.total_bytes : 0;
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.1f%%", share * 100);
      BarCell(share, palette::WithAlpha(palette::kSpike, 120), pct);
    }
  }
  ImGui::EndTable();
}

nlohmann::json LeaksView::Data(ViewContext& ctx) {
  const analysis::LeakReport& leaks = ctx.session.heap().leaks;
  nlohmann::json rows = nlohmann::json::array();
  for (const analysis::LeakSite& s : leaks.sites) {
    if (!ctx.session.Keeps(s.stack_id)) continue;
    const SiteLabel& label = ctx.session.Label(s.stack_id);
    nlohmann::json row = {{"stack_id", s.stack_id},
                          {"function", label.function},
                          {"location", label.location},
                          {"blocks", s.blocks},
                          {"bytes", s.bytes},
                          {"stack", StackJson(ctx.session, s.stack_id)}};
    AddOrigin(row, label);
    rows.push_back(std::move(row));
  }
  return {{"view", name()}, {"total_blocks", leaks.total_blocks}, {"total_bytes", leaks.total_bytes}, {"rows", rows}};
}

}  // namespace memframe::viewer
