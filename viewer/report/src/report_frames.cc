// `memframe report frames`: one row per frame, and under it one row per
// module class of the capture (live_series.h), text and JSON.
#include <algorithm>
#include <vector>

#include "memframe/analysis/live_series.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

struct ClassRows {
  LiveSeries series;
  // The classes --only / --hide keep that the capture has, in display order.
  std::vector<ModuleClass> shown;
};

ClassRows ComputeClassRows(const ReportInput& input) {
  ClassRows rows;
  rows.series = ComputeClassSeries(input.capture.main, input.heap.frames,
                                   [&](uint32_t stack_id) { return StackClass(input, stack_id); });
  for (ModuleClass c : AllModuleClasses()) {
    if (input.options.classes.Keeps(c) && rows.series.Present(static_cast<size_t>(c))) rows.shown.push_back(c);
  }
  return rows;
}

// A frame's figures over the classes shown: the frame table's own when
// every class is kept (the series adds up to it; live_series_test).
LiveFigures Shown(const ReportInput& input, const LiveSeries& series, size_t row) {
  return series.Sum(row, [&](size_t g) { return input.options.classes.Keeps(static_cast<ModuleClass>(g)); });
}

void WriteSpikeRule(const FrameTable& t, std::ostream& out) {
  // Each steady phase is its own baseline (phases.h): its thresholds are in `phases`.
  size_t steady = 0;
  const Phase* only = nullptr;
  for (const Phase& p : FindPhases(t))
    if (p.kind == PhaseKind::kSteady && ++steady == 1) only = &p;
  if (steady == 1 && !SpikesJudgedLocally(t.CountIn(only->frames))) {
    out << "; spike = a steady frame above " << FormatCount(only->allocation_spike.threshold) << " allocations or "
        << FormatBytes(only->bytes_spike.threshold) << "\n";
    return;
  }
  out << "; spike = a steady frame above median + " << kSpikeScale
      << " MADs of its own steady phase, in allocations or bytes (`report phases` gives each phase's)\n";
}

std::vector<std::string> FigureCells(const LiveFigures& f) {
  return {FormatCount(f.allocations), FormatCount(f.frees),       FormatBytes(f.bytes_allocated),
          FormatBytes(f.bytes_freed), FormatBytes(f.live_bytes), FormatBytes(f.mapped_bytes)};
}

json FiguresJson(const LiveFigures& f) {
  return {{"allocations", f.allocations},         {"frees", f.frees},
          {"bytes_allocated", f.bytes_allocated}, {"bytes_freed", f.bytes_freed},
          {"live_bytes", f.live_bytes},           {"mapped_bytes", f.mapped_bytes}};
}

}  // namespace

void WriteFramesText(const ReportInput& input, std::ostream& out) {
  const FrameTable& t = input.heap.frames;
  FrameRange range = AllFramesRange(input);
  const ClassRows classes = ComputeClassRows(input);
  const bool all_kept = input.options.classes.KeepsAll();
  // One class shown: its figures are the frame's, no rows under it.
  const bool split = classes.shown.size() > 1;
  const std::string total_name =
      all_kept ? "all" : classes.shown.size() == 1 ? ModuleClassName(classes.shown[0]) : "shown";

  out << FormatCount(t.frames_rendered) << " frames rendered";
  if (!t.frame_source.empty()) out << " (" << t.frame_source << ")";
  WriteSpikeRule(t, out);
  out << "live and mapped: heap blocks live and anonymous mappings at the frame's end";
  if (split) out << "; a row per module class (the class of the site that allocated)";
  out << ClassesShown(input) << "; allocator time is of every class\n\n";

  TextTable table({{"frame"}, {"phase", true}, {"class", true}, {"allocs"}, {"frees"}, {"bytes alloc"}, {"bytes freed"},
                   {"live bytes"}, {"mapped"}, {"alloc time"}, {"", true}});
  auto [first, end] = t.RowsIn(range);
  for (size_t i = first; i < end; ++i) {
    const FrameStats& f = t.frames[i];
    std::vector<std::string> row = {std::to_string(f.frame), PhaseNameOf(t, f.frame), total_name};
    for (std::string& cell : FigureCells(Shown(input, classes.series, i))) row.push_back(std::move(cell));
    row.push_back(FormatDuration(f.alloc_time_ns));
    row.push_back(f.spike ? "spike" : (f.ended ? "" : "(not ended)"));
    table.AddRow(std::move(row));
    if (!split) continue;
    for (ModuleClass c : classes.shown) {
      std::vector<std::string> sub = {"", "", std::string("  ") + ModuleClassName(c)};
      for (std::string& cell : FigureCells(classes.series.At(i, static_cast<size_t>(c)))) sub.push_back(std::move(cell));
      sub.push_back("");
      sub.push_back("");
      table.AddRow(std::move(sub));
    }
  }
  table.Write(out);
}

void WriteFramesJson(const ReportInput& input, std::ostream& out) {
  const FrameTable& t = input.heap.frames;
  FrameRange range = AllFramesRange(input);
  const ClassRows classes = ComputeClassRows(input);
  json frames = json::array();
  auto [first, end] = t.RowsIn(range);
  for (size_t i = first; i < end; ++i) {
    const FrameStats& f = t.frames[i];
    json row = {{"frame", f.frame}, {"phase", PhaseNameOf(t, f.frame)}};
    row.update(FiguresJson(Shown(input, classes.series, i)));
    row.update(json{{"peak_live_bytes", f.peak_live_bytes},
                    {"alloc_time_ns", f.alloc_time_ns},
                    {"slowest_alloc_ns", f.slowest_alloc_ns},
                    {"spike", f.spike}});
    json by_class = json::object();
    for (ModuleClass c : classes.shown)
      by_class[ModuleClassName(c)] = FiguresJson(classes.series.At(i, static_cast<size_t>(c)));
    row["classes"] = std::move(by_class);
    frames.push_back(std::move(row));
  }
  json present = json::array();
  for (ModuleClass c : classes.shown) present.push_back(ModuleClassName(c));
  Emit({{"module_classes_shown", ClassesShownJson(input)}, {"module_classes", present}, {"frames", std::move(frames)}},
       out);
}

}  // namespace memframe::analysis
