#include "views/mismatches_view.h"

#include <algorithm>
#include <string>

#include <imgui.h>

#include "format.h"
#include "view_json.h"
#include "row_filter.h"
#include "widgets/cut_text.h"
#include "widgets/filter_bar.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {

enum Column { kKind, kAllocated, kFreed, kCount, kBytes, kFirstFrame, kSite, kColumns };

const char* KindLabel(analysis::Mismatch::Kind kind) {
  switch (kind) {
    case analysis::Mismatch::Kind::kFamily: return "wrong family";
    case analysis::Mismatch::Kind::kDoubleFree: return "double free";
    case analysis::Mismatch::Kind::kFreedAfterRelease: return "freed after release";
    case analysis::Mismatch::Kind::kUnknownPointer: return "unknown pointer";
  }
  return "";
}

}  // namespace

void MismatchesView::Draw(ViewContext& ctx) {
  const analysis::MismatchReport& report = ctx.session.Mismatches();
  if (report.mismatches.empty()) {
    ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.6f, 1),
                       "No mismatched frees: each of the %s frees matched its allocation (family, once, known block).",
                       FormatCount(report.frees).c_str());
    return;
  }
  uint64_t total = 0;
  for (const auto& m : report.mismatches) total += m.count;
  ImGui::TextColored(palette::kError, "%s", Plural(total, "mismatched free").c_str());
  ImGui::SameLine();
  ImGui::Text("of %s, in %zu groups. Each is undefined behaviour that works with glibc until it does not.",
              FormatCount(report.frees).c_str(), report.mismatches.size());
  RefreshKept(ctx);
  DrawFilterBar(ctx.selection, false, kept_.size(), report.mismatches.size());
  const bool stack_shown = selected_ && keys_.stack_open();
  float stack_height = stack_shown ? ImGui::GetContentRegionAvail().y * 0.45f : 0;
  ImGui::BeginChild("mismatch_table", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTable(ctx);
  ImGui::EndChild();
  if (stack_shown) DrawStacks(ctx, report.mismatches[*selected_]);
}

void MismatchesView::RefreshKept(ViewContext& ctx) {
  if (has_kept_ && kept_search_ == ctx.selection.search) return;
  has_kept_ = true;
  kept_search_ = ctx.selection.search;
  kept_.clear();
  const auto& rows = ctx.session.Mismatches().mismatches;
  // The search finds the allocating or the freeing site (sizes and classes
  // are the allocation's business, not the free's: they do not apply).
  for (uint32_t i = 0; i < rows.size(); ++i) {
    if (SiteMatchesSearch(ctx.session, rows[i].alloc_stack, kept_search_) ||
        SiteMatchesSearch(ctx.session, rows[i].free_stack, kept_search_))
      kept_.push_back(i);
  }
  order_.Invalidate();
  if (selected_ && std::find(kept_.begin(), kept_.end(), *selected_) == kept_.end()) selected_.reset();
}

void MismatchesView::DrawTable(ViewContext& ctx) {
  const auto& all = ctx.session.Mismatches().mismatches;
  const auto& kept = kept_;
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("mismatches", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Kind", ImGuiTableColumnFlags_WidthFixed, 120);
  ImGui::TableSetupColumn("Allocated with", ImGuiTableColumnFlags_WidthFixed, 100);
  ImGui::TableSetupColumn("Freed with", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Count", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 70);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_PreferSortDescending, 90);
  ImGui::TableSetupColumn("First frame", 0, 80);
  ImGui::TableSetupColumn("Allocated in", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  Session& session = ctx.session;
  const auto& order = order_.Update(kept.size(), false, [&](uint32_t a, uint32_t b, int column) {
    const analysis::Mismatch& x = all[kept[a]];
    const analysis::Mismatch& y = all[kept[b]];
    switch (column) {
      case kKind: return Compare3(x.kind, y.kind);
      case kAllocated: return Compare3(x.alloc_family, y.alloc_family);
      case kFreed: return Compare3(x.free_family, y.free_family);
      case kCount: return Compare3(x.count, y.count);
      case kBytes: return Compare3(x.bytes, y.bytes);
      case kFirstFrame: return Compare3(x.first_frame, y.first_frame);
      case kSite: return session.Label(x.alloc_stack).function.compare(session.Label(y.alloc_stack).function);
    }
    return 0;
  });
  if (!selected_ && !order.empty()) selected_ = kept[order[0]];
  if (auto to = keys_.Moved(DisplayIndex(order, [&](uint32_t row) { return selected_ == kept[row]; }),
                            static_cast<int>(order.size())))
    selected_ = kept[order[*to]];
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  keys_.Reveal(clipper);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t index = kept[order[i]];  // in the report
      const analysis::Mismatch& m = all[index];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(index));
      ImGui::PushStyleColor(ImGuiCol_Text, palette::kError);
      if (ImGui::Selectable(KindLabel(m.kind), selected_ == index, ImGuiSelectableFlags_SpanAllColumns)) {
        selected_ = index;
        keys_.OpenStack();
      }
      ImGui::PopStyleColor();
      ImGui::PopID();
      bool unknown = m.kind == analysis::Mismatch::Kind::kUnknownPointer;
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(unknown ? "\xE2\x80\x94" : analysis::AllocName(m.alloc_family));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(analysis::FreeName(m.free_family));
      ImGui::TableNextColumn();
      TextRight(FormatCount(m.count).c_str());
      ImGui::TableNextColumn();
      TextRight(unknown ? "\xE2\x80\x94" : FormatBytes(m.bytes).c_str());
      ImGui::TableNextColumn();
      TextRight(std::to_string(m.first_frame).c_str());
      ImGui::TableNextColumn();
      const SiteLabel& label = session.Label(m.alloc_stack);
      TextFitRight(unknown ? "(never allocated in the capture)" : label.function, ImGui::GetStyleColorVec4(ImGuiCol_Text));
      keys_.AfterRow(i);
    }
  }
  ImGui::EndTable();
}

void MismatchesView::DrawStacks(ViewContext& ctx, const analysis::Mismatch& m) {
  const bool free_stacks = ctx.session.Mismatches().frees_with_stack > 0;
  if (ImGui::BeginTable("both_stacks", 2, ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextColumn();
    ImGui::TextColored(palette::kDimText, "Allocated (%s)", analysis::AllocName(m.alloc_family));
    ImGui::BeginChild("alloc_stack", ImVec2(0, 0), true);
    if (m.alloc_stack) DrawStackPanel(ctx.session, m.alloc_stack, ctx.fonts);
    else ImGui::TextColored(palette::kDimText, "No allocation of this address was recorded.");
    ImGui::EndChild();
    ImGui::TableNextColumn();
    ImGui::TextColored(palette::kDimText, "Freed (%s) at 0x%llx", analysis::FreeName(m.free_family),
                       static_cast<unsigned long long>(m.first_address));
    ImGui::BeginChild("free_stack", ImVec2(0, 0), true);
    if (m.free_stack) DrawStackPanel(ctx.session, m.free_stack, ctx.fonts);
    else if (!free_stacks)
      ImGui::TextWrapped("This capture has no free stacks, so the freeing code is unknown. Record with memframe run --free-stacks to see it.");
    else ImGui::TextColored(palette::kDimText, "No stack was recorded for this free.");
    ImGui::EndChild();
    ImGui::EndTable();
  }
}

nlohmann::json MismatchesView::Data(ViewContext& ctx) {
  const analysis::MismatchReport& report = ctx.session.Mismatches();
  nlohmann::json rows = nlohmann::json::array();
  uint64_t total = 0;
  for (const analysis::Mismatch& m : report.mismatches) total += m.count;
  RefreshKept(ctx);
  analysis::JsonStackTable stacks;
  for (uint32_t index : kept_) {
    const analysis::Mismatch& m = report.mismatches[index];
    analysis::SiteStats alloc, free;
    alloc.stack_id = m.alloc_stack;
    free.stack_id = m.free_stack;
    rows.push_back(nlohmann::json(analysis::MismatchJson(m, SiteViewOf(ctx.session, alloc), SiteViewOf(ctx.session, free), stacks)));
  }
  nlohmann::json data = {{"view", name()}, {"frees", report.frees}, {"free_stacks_recorded", report.frees_with_stack > 0},
                         {"freed_before_attach", report.freed_before_attach}, {"total", total},
                         {"filter", FilterJson(ctx.session, ctx.selection)}, {"rows", rows}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
