#include "views/threads_view.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "format.h"
#include "memframe/analysis/ratios.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

namespace {

enum Column { kShow, kName, kTid, kAllocations, kBytes, kPerFrame, kFrames, kTime, kShare, kColumns };

using analysis::PerFrame;
using analysis::Share;

// Whether the selection holds the thread(s) of `tid` (empty = every thread).
bool Holds(const analysis::ThreadSelection& selection, const analysis::Stream& stream, uint32_t tid) {
  if (selection.empty()) return false;
  for (size_t i = 0; i < stream.threads.size() && i < selection.size(); ++i)
    if (stream.threads[i].tid == tid && selection[i]) return true;
  return false;
}

analysis::ThreadSelection Toggled(analysis::ThreadSelection selection, const analysis::Stream& stream, uint32_t tid,
                                  bool on) {
  selection.resize(stream.threads.size(), false);
  for (size_t i = 0; i < stream.threads.size(); ++i)
    if (stream.threads[i].tid == tid) selection[i] = on;
  if (std::find(selection.begin(), selection.end(), true) == selection.end()) selection.clear();
  return selection;
}

}  // namespace

void ThreadsView::Draw(ViewContext& ctx) {
  Session& session = ctx.session;
  const analysis::ThreadReport& r = session.threads();
  const analysis::Stream& stream = session.capture().main;
  const analysis::ThreadSelection& pending = session.pending_threads();
  ImGui::Text("%zu threads called the allocator; allocator time %s in all", r.threads.size(),
              FormatDuration(r.alloc_time_ns).c_str());
  ImGui::SameLine(0, 20);
  if (session.threads_rebuilding()) {
    ImGui::TextColored(palette::kWarning, "applying the thread selection\xE2\x80\xA6");
  } else if (pending.empty()) {
    ImGui::TextColored(palette::kDimText, "Tick threads to show only theirs in every view");
  } else {
    ImGui::TextColored(palette::kWarning, "every view shows %s only",
                       analysis::DescribeThreads(stream, pending).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Show all threads")) session.SelectThreads({});
  }
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("threads", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Show", ImGuiTableColumnFlags_WidthFixed, 44);
  ImGui::TableSetupColumn("Thread", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("TID", ImGuiTableColumnFlags_WidthFixed, 70);
  ImGui::TableSetupColumn("Allocations", ImGuiTableColumnFlags_WidthFixed, 100);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Allocs/frame", ImGuiTableColumnFlags_WidthFixed, 100);
  ImGui::TableSetupColumn("Frames", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("Allocator time", ImGuiTableColumnFlags_WidthFixed, 110);
  ImGui::TableSetupColumn("Share of allocator time", ImGuiTableColumnFlags_WidthFixed, 180);
  ImGui::TableHeadersRow();
  for (const analysis::ThreadStats& t : r.threads) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(t.tid));
    bool shown = Holds(pending, stream, t.tid);
    if (ImGui::Checkbox("##show", &shown)) session.SelectThreads(Toggled(pending, stream, t.tid, shown));
    ImGui::PopID();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(t.name.empty() ? "(unnamed)" : t.name.c_str());
    ImGui::TableNextColumn();
    TextRight(std::to_string(t.tid).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatCount(t.allocations).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatBytes(t.bytes).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatRate(PerFrame(t.allocations, r.frames)).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatCount(t.frames_with_allocations).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatDuration(t.alloc_time_ns).c_str());
    ImGui::TableNextColumn();
    const double share = Share(t.alloc_time_ns, r.alloc_time_ns);
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%%", share * 100);
    BarCell(static_cast<float>(share), palette::WithAlpha(palette::kSpike, 120), pct);
  }
  ImGui::EndTable();
}

nlohmann::json ThreadsView::Data(ViewContext& ctx) {
  const analysis::ThreadReport& r = ctx.session.threads();
  const analysis::Stream& stream = ctx.session.capture().main;
  nlohmann::json rows = nlohmann::json::array();
  for (const analysis::ThreadStats& t : r.threads) {
    rows.push_back({{"tid", t.tid},
                    {"name", t.name},
                    {"allocations", t.allocations},
                    {"bytes", t.bytes},
                    {"frees", t.frees},
                    {"allocations_per_frame", PerFrame(t.allocations, r.frames)},
                    {"frames_with_allocations", t.frames_with_allocations},
                    {"alloc_time_ns", t.alloc_time_ns},
                    {"alloc_time_share", Share(t.alloc_time_ns, r.alloc_time_ns)},
                    {"shown", ctx.session.thread_selection().empty() ||
                                  Holds(ctx.session.thread_selection(), stream, t.tid)}});
  }
  return {{"view", name()}, {"frames", r.frames}, {"alloc_time_ns", r.alloc_time_ns}, {"rows", rows}};
}

}  // namespace memframe::viewer
