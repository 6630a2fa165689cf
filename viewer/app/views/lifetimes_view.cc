#include "views/lifetimes_view.h"

#include <iterator>
#include <string>

#include <imgui.h>

#include "format.h"
#include "memframe/analysis/site_origin.h"
#include "view_json.h"
#include "row_filter.h"
#include "widgets/filter_bar.h"
#include "widgets/judged_frames_line.h"
#include "widgets/phase_picker.h"
#include "widgets/site_row.h"
#include "widgets/stack_panel.h"

namespace memframe::viewer {

namespace {

using analysis::LifetimeClass;

enum Column { kFunction, kLocation, kModule, kThread, kClass, kAdvice, kCapacity, kCalls, kBytes, kAllocations, kLongest, kColumns };

// One colour per allocator, used in the class summary and the table.
ImVec4 ClassColour(LifetimeClass c) {
  switch (c) {
    case LifetimeClass::kFrame: return ImVec4(0.96f, 0.78f, 0.30f, 1);
    case LifetimeClass::kLevel: return ImVec4(0.40f, 0.72f, 1.00f, 1);
    case LifetimeClass::kPool: return ImVec4(0.55f, 0.85f, 0.55f, 1);
    case LifetimeClass::kRing: return ImVec4(0.40f, 0.85f, 0.80f, 1);
    case LifetimeClass::kLongLived: return ImVec4(0.80f, 0.60f, 0.95f, 1);
    case LifetimeClass::kGeneral: return palette::kDimText;
  }
  return palette::kDimText;
}

// What an allocator for the site must hold.
std::string Capacity(const analysis::SiteLifetime& s) {
  if (s.lifetime == LifetimeClass::kPool || (s.lifetime == LifetimeClass::kRing && s.size_min == s.size_max))
    return FormatCount(s.peak_live_blocks) + " \xC3\x97 " + FormatBytes(s.size_max);
  if (s.lifetime == LifetimeClass::kGeneral) return "\xE2\x80\x94";
  return FormatBytes(s.peak_live_bytes);
}

constexpr LifetimeClass kClasses[] = {LifetimeClass::kFrame, LifetimeClass::kLevel, LifetimeClass::kRing,
                                      LifetimeClass::kPool, LifetimeClass::kLongLived, LifetimeClass::kGeneral};

}  // namespace

bool LifetimesView::Refresh(ViewContext& ctx, bool wait) {
  // The whole capture, when asked, is every block (every frame), as
  // `memframe report lifetimes --all-frames`.
  JudgedScope scope = JudgedScopeOf(ctx.session, ctx.selection, ctx.session.AllFrames());
  const analysis::LifetimeReport* report = ctx.session.Lifetimes(scope.judged.ranges, wait);
  if (!(scope == scope_) || report != report_) {
    scope_ = std::move(scope);
    report_ = report;
    summary_classes_.reset();
    rows_general_ = !show_general_;  // rebuild the rows
  }
  return report_ != nullptr;
}

bool LifetimesView::Owned(const SiteLabel& label) { return label.has_stack && analysis::OwnedByTheGame(label.module_class); }

const LifetimesView::Summary& LifetimesView::KeptSummary(ViewContext& ctx) {
  const analysis::LifetimeReport& report = Report();
  static_assert(std::size(kClasses) == std::size(Summary{}.sites), "a count per lifetime class");
  if (summary_classes_ == ctx.session.classes_generation()) return summary_;
  summary_ = {};
  std::vector<analysis::SiteLifetime> kept;
  for (const analysis::SiteLifetime& s : report.sites) {
    if (!ctx.session.Keeps(s.stack_id)) continue;
    summary_.sites[static_cast<int>(s.lifetime)]++;
    summary_.calls[static_cast<int>(s.lifetime)] += s.allocations + s.frees;
    kept.push_back(s);
  }
  // Another replay only when the classes narrow the frame sites.
  summary_.frame_arena = ctx.session.class_filter().KeepsAll()
                             ? report.frame_arena
                             : analysis::AdviseFrameArena(ctx.session.capture().main, kept, scope_.judged.ranges);
  summary_classes_ = ctx.session.classes_generation();
  return summary_;
}

bool LifetimesView::RefreshRows(ViewContext& ctx) {
  RowFilterKey key = FilterKeyOf(ctx.session, ctx.selection);
  bool changed = rows_general_ != show_general_ || rows_not_owned_ != show_not_owned_ || !(key == filter_key_);
  if (changed) {
    rows_.clear();
    not_owned_ = 0;
    const auto& sites = Report().sites;
    RowFilter filter(ctx.session, ctx.selection);
    for (uint32_t i = 0; i < sites.size(); ++i) {
      if ((!show_general_ && sites[i].lifetime == LifetimeClass::kGeneral) || !filter.Keeps(sites[i].stack_id)) continue;
      if (!Owned(ctx.session.Label(sites[i].stack_id))) {
        ++not_owned_;
        if (!show_not_owned_) continue;
      }
      rows_.push_back(i);
    }
    rows_general_ = show_general_;
    rows_not_owned_ = show_not_owned_;
    filter_key_ = key;
    std::vector<uint32_t> ids;
    for (uint32_t i : rows_) ids.push_back(sites[i].stack_id);
    labels_.Build(ctx.session, ids);
  analysis::JsonStackTable stacks;
  }
  return changed;
}

void LifetimesView::Draw(ViewContext& ctx) {
  bool ready = Refresh(ctx, false);  // first: a new range rebuilds the rows below
  if (DrawPhasePicker(ctx.session, ctx.selection, scope_)) ready = Refresh(ctx, false);
  if (!ready) {
    ImGui::TextColored(palette::kDimText, "Working out how every block lives (a replay of every event)\xE2\x80\xA6");
    return;
  }
  const bool changed = RefreshRows(ctx);  // before the classes: their line counts what the rows left out
  DrawClasses(ctx);
  DrawFilterBar(ctx.selection, false, rows_.size(), Report().sites.size());
  const bool stack_shown = selected_stack_ && keys_.stack_open();
  float stack_height = stack_shown ? ImGui::GetContentRegionAvail().y * 0.40f : 0;
  ImGui::BeginChild("lifetimes_table", ImVec2(0, -stack_height), false, ImGuiWindowFlags_NoBackground);
  DrawTable(ctx, changed);
  ImGui::EndChild();
  if (stack_shown) {
    ImGui::BeginChild("lifetimes_stack", ImVec2(0, 0), true);
    DrawStackPanel(ctx.session, *selected_stack_, ctx.fonts);
    ImGui::EndChild();
  }
}

void LifetimesView::DrawClasses(ViewContext& ctx) {
  const analysis::LifetimeReport& report = Report();
  const Summary& summary = KeptSummary(ctx);
  bool first = true;
  for (LifetimeClass c : kClasses) {
    if (!first) ImGui::SameLine(0, 22);
    first = false;
    ImGui::TextColored(ClassColour(c), "%s", analysis::LifetimeClassName(c));
    ImGui::SameLine();
    ImGui::Text("%s, %s", Plural(summary.sites[static_cast<int>(c)], "site").c_str(),
                Plural(summary.calls[static_cast<int>(c)], "call").c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", analysis::LifetimeAdvice(c));
  }
  const analysis::FrameArenaAdvice& arena = summary.frame_arena;
  if (arena.calls_saved)
    ImGui::Text("Frame arena: %s (99th percentile of the frame sites' bytes over %s; largest %s), saves %s",
                FormatBytes(arena.p99_bytes).c_str(), Plural(arena.frames, "frame").c_str(),
                FormatBytes(arena.max_bytes).c_str(), Plural(arena.calls_saved, "call").c_str());
  if (!ctx.session.class_filter().KeepsAll()) {
    ImGui::TextColored(palette::kWarning, "Sites of %s only", ctx.session.class_filter().Describe().c_str());
    ImGui::SameLine(0, 22);
  }
  ImGui::TextColored(palette::kDimText, "Phase boundaries: %zu frame%s%s", report.boundary_frames.size(),
                     report.boundary_frames.size() == 1 ? "" : "s", report.boundary_frames.empty() ? "" : " (");
  for (size_t i = 0; i < report.boundary_frames.size() && i < 12; ++i) {
    ImGui::SameLine(0, i ? 6 : 0);
    ImGui::TextColored(palette::kDimText, "%llu%s", static_cast<unsigned long long>(report.boundary_frames[i]),
                       i + 1 == report.boundary_frames.size() ? ")" : (i == 11 ? " \xE2\x80\xA6)" : ","));
  }
  ImGui::SameLine(0, 22);
  ImGui::Checkbox("Show general sites", &show_general_);
  if (not_owned_ || show_not_owned_) {
    ImGui::TextColored(palette::kDimText, "%s in driver and system code, which the game cannot change, %s",
                       Plural(not_owned_, "site").c_str(), show_not_owned_ ? "shown too" : "left out");
    ImGui::SameLine(0, 16);
    ImGui::Checkbox("Show them", &show_not_owned_);
  }
}

void LifetimesView::DrawTable(ViewContext& ctx, bool rows_changed) {
  const auto& sites = Report().sites;
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti | ImGuiTableFlags_RowBg |
                          ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_Hideable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("lifetimes", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  SetupSiteColumns();
  ImGui::TableSetupColumn("Lifetime", ImGuiTableColumnFlags_WidthFixed, 75);
  ImGui::TableSetupColumn("Advice", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("Capacity", ImGuiTableColumnFlags_PreferSortDescending, 100);
  ImGui::TableSetupColumn("Calls saved", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 95);
  ImGui::TableSetupColumn("Bytes saved", ImGuiTableColumnFlags_PreferSortDescending, 95);
  ImGui::TableSetupColumn("Allocations", ImGuiTableColumnFlags_PreferSortDescending, 92);
  ImGui::TableSetupColumn("Longest life", ImGuiTableColumnFlags_PreferSortDescending, 95);
  ImGui::TableHeadersRow();
  Session& session = ctx.session;
  const auto& order = order_.Update(rows_.size(), rows_changed, [&](uint32_t a, uint32_t b, int column) {
    const analysis::SiteLifetime& x = sites[rows_[a]];
    const analysis::SiteLifetime& y = sites[rows_[b]];
    switch (column) {
      case kFunction: return labels_.Label(session, x.stack_id).name.compare(labels_.Label(session, y.stack_id).name);
      case kLocation: return labels_.Label(session, x.stack_id).location.compare(labels_.Label(session, y.stack_id).location);
      case kModule: return CompareModules(labels_.Label(session, x.stack_id), labels_.Label(session, y.stack_id));
      case kThread: return session.ThreadCell(x.stack_id).compare(session.ThreadCell(y.stack_id));
      case kClass:
      case kAdvice: return Compare3(x.lifetime, y.lifetime);
      case kCapacity: return Compare3(x.peak_live_bytes, y.peak_live_bytes);
      case kCalls: return Compare3(x.calls_saved, y.calls_saved);
      case kBytes: return Compare3(x.bytes_saved, y.bytes_saved);
      case kAllocations: return Compare3(x.allocations, y.allocations);
      case kLongest: return Compare3(x.lifetime_frames_max, y.lifetime_frames_max);
    }
    return 0;
  });
  if (!selected_stack_ && !order.empty()) selected_stack_ = sites[rows_[order[0]]].stack_id;
  if (auto to = keys_.Moved(DisplayIndex(order, [&](uint32_t row) { return sites[rows_[row]].stack_id == selected_stack_; }),
                            static_cast<int>(order.size())))
    selected_stack_ = sites[rows_[order[*to]]].stack_id;
  name_column_.BeginFrame();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  keys_.Reveal(clipper);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const analysis::SiteLifetime& s = sites[rows_[order[i]]];
      const SiteLabel& label = labels_.Label(session, s.stack_id);
      if (SiteRowLeadingCells(name_column_, label, session.ThreadCell(s.stack_id), s.stack_id, selected_stack_ == s.stack_id)) {
        selected_stack_ = s.stack_id;
        keys_.OpenStack();
      }
      keys_.AfterRow(i);
      ImGui::TableNextColumn();
      ImGui::TextColored(ClassColour(s.lifetime), "%s", analysis::LifetimeClassName(s.lifetime));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(analysis::LifetimeAdvice(s.lifetime));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", analysis::LifetimeAdvice(s.lifetime));
      ImGui::TableNextColumn();
      TextRight(Capacity(s).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.calls_saved).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes_saved).c_str());
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.allocations).c_str());
      ImGui::TableNextColumn();
      TextRight((std::to_string(s.lifetime_frames_max) + " frames").c_str());
    }
  }
  ImGui::EndTable();
}

nlohmann::json LifetimesView::Data(ViewContext& ctx) {
  Refresh(ctx, true);
  const analysis::LifetimeReport& report = Report();
  nlohmann::json rows = nlohmann::json::array();
  RowFilter filter(ctx.session, ctx.selection);
  std::vector<uint32_t> ids;
  for (const analysis::SiteLifetime& s : report.sites)
    if (filter.Keeps(s.stack_id)) ids.push_back(s.stack_id);
  labels_.Build(ctx.session, ids);
  analysis::JsonStackTable stacks;
  for (const analysis::SiteLifetime& s : report.sites) {
    if (!filter.Keeps(s.stack_id)) continue;
    const SiteLabel& label = labels_.Label(ctx.session, s.stack_id);
    analysis::SiteStats site;
    site.stack_id = s.stack_id;
    nlohmann::json row = analysis::LifetimeJson(s, SiteViewOf(ctx.session, site), Owned(label), stacks);
    // As the row reads: look-alikes told apart.
    row["name"] = label.name;
    row["location"] = label.location;
    row["via"] = labels_.Name(s.stack_id).via;
    row["inside"] = labels_.Inside(s.stack_id);
    rows.push_back(std::move(row));
  }
  const Summary& summary = KeptSummary(ctx);
  nlohmann::json classes = nlohmann::json::array();
  for (LifetimeClass c : kClasses)
    classes.push_back({{"class", analysis::LifetimeClassName(c)},
                       {"sites", summary.sites[static_cast<int>(c)]},
                       {"calls", summary.calls[static_cast<int>(c)]}});
  const analysis::FrameArenaAdvice& arena = summary.frame_arena;
  nlohmann::json data = {{"view", name()},
          {"range", RangeJson(scope_.range)},
          {"scope", JudgedScopeJson(scope_)},
          {"judged_frames", JudgedFramesJson(scope_.judged)},
          {"boundary_frames", report.boundary_frames},
          {"classes", classes},
          {"frame_arena", {{"frames", arena.frames}, {"p99_bytes", arena.p99_bytes}, {"max_bytes", arena.max_bytes},
                           {"calls_saved", arena.calls_saved}}},
          {"filter", FilterJson(ctx.session, ctx.selection)},
          {"rows", rows}};
  AddStacks(data, stacks);
  return data;
}

}  // namespace memframe::viewer
