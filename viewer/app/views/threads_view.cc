#include "views/threads_view.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "format.h"
#include "memframe/analysis/ratios.h"
#include "view_json.h"
#include "widgets/judged_frames_line.h"
#include "widgets/table_order.h"

namespace memframe::viewer {

namespace {

enum Column {
  kShow, kName, kTid, kAllocations, kBytes, kFrees, kBytesFreed, kAllocsPerFrame, kFreesPerFrame, kBytesPerFrame,
  kFrames, kTime, kShare, kColumns
};

using analysis::Share;

std::string Rate(double per_frame) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", per_frame);
  return text;
}

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

const ThreadTable& ThreadsView::Table(ViewContext& ctx) {
  Session& session = ctx.session;
  const analysis::FrameRange range = ctx.selection.PickedRange(session.AllFrames());
  if (!table_ || table_session_ != &session || table_all_frames_ != session.judge_all_frames() ||
      !(table_->range == range)) {
    table_ = BuildThreadTable(session.thread_history(), session.frames(), range, session.Judged(range));
    table_session_ = &session;
    table_all_frames_ = session.judge_all_frames();
  }
  return *table_;
}

void ThreadsView::Draw(ViewContext& ctx) {
  Session& session = ctx.session;
  const ThreadTable& table = Table(ctx);
  const analysis::Stream& stream = session.capture().main;
  const analysis::ThreadSelection& pending = session.pending_threads();
  ImGui::Text("%s called the allocator; allocator time %s in all", Plural(table.rows.size(), "thread").c_str(),
              FormatDuration(table.alloc_time_ns).c_str());
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
  // Counts are of the range; the rates "/frame" of its judged frames.
  if (DrawJudgedFramesLine(session, ctx.selection, table.judged)) Table(ctx);
  ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("threads", kColumns, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Show", ImGuiTableColumnFlags_WidthFixed, 44);
  ImGui::TableSetupColumn("Thread", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("TID", ImGuiTableColumnFlags_WidthFixed, 60);
  ImGui::TableSetupColumn("Allocations", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Bytes", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("Frees", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("Freed", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("Allocs/frame", ImGuiTableColumnFlags_WidthFixed, 90);
  ImGui::TableSetupColumn("Frees/frame", ImGuiTableColumnFlags_WidthFixed, 85);
  ImGui::TableSetupColumn("Bytes/frame", ImGuiTableColumnFlags_WidthFixed, 85);
  ImGui::TableSetupColumn("Frames", ImGuiTableColumnFlags_WidthFixed, 60);
  ImGui::TableSetupColumn("Allocator time", ImGuiTableColumnFlags_WidthFixed, 100);
  ImGui::TableSetupColumn("Time share", ImGuiTableColumnFlags_WidthFixed, 120);
  ImGui::TableHeadersRow();
  for (const ThreadRow& row : table.rows) {
    const analysis::ThreadStats& t = row.range;
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
    TextRight(FormatCount(t.frees).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatBytes(t.bytes_freed).c_str());
    ImGui::TableNextColumn();
    TextRight(Rate(row.allocations_per_frame).c_str());
    ImGui::TableNextColumn();
    TextRight(Rate(row.frees_per_frame).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatBytes(static_cast<uint64_t>(row.bytes_per_frame + 0.5)).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatCount(t.frames_with_allocations).c_str());
    ImGui::TableNextColumn();
    TextRight(FormatDuration(t.alloc_time_ns).c_str());
    ImGui::TableNextColumn();
    const double share = Share(t.alloc_time_ns, table.alloc_time_ns);
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%%", share * 100);
    BarCell(static_cast<float>(share), palette::WithAlpha(palette::kSpike, 120), pct);
  }
  ImGui::EndTable();
}

nlohmann::json ThreadsView::Data(ViewContext& ctx) {
  const ThreadTable& table = Table(ctx);
  const analysis::Stream& stream = ctx.session.capture().main;
  nlohmann::json rows = nlohmann::json::array();
  for (const ThreadRow& row : table.rows) {
    const analysis::ThreadStats& t = row.range;
    nlohmann::json json_row = analysis::ThreadJson(t, row.allocations_per_frame, table.alloc_time_ns);
    // The view's own rates, per judged frame beside allocations_per_frame.
    json_row["frees_per_frame"] = row.frees_per_frame;
    json_row["bytes_per_frame"] = row.bytes_per_frame;
    json_row["shown"] = ctx.session.thread_selection().empty() || Holds(ctx.session.thread_selection(), stream, t.tid);
    rows.push_back(std::move(json_row));
  }
  return {{"view", name()},
          {"range", RangeJson(table.range)},
          {"frames", ctx.session.frames().CountIn(table.range)},
          {"judged_frames", JudgedFramesJson(table.judged)},
          {"alloc_time_ns", table.alloc_time_ns},
          {"rows", rows}};
}

}  // namespace memframe::viewer
