#include "view_json.h"

#include "format.h"
#include "memframe/report/capture_notes.h"
#include "memframe/analysis/program_end.h"

namespace memframe::viewer {

nlohmann::json RangeJson(analysis::FrameRange range) { return {{"from", range.from}, {"to", range.to}}; }

nlohmann::json StackJson(Session& session, uint32_t stack_id) {
  nlohmann::json frames = nlohmann::json::array();
  for (const analysis::SourceFrame& f : session.Stack(stack_id)) {
    frames.push_back({{"function", f.function},
                      {"file", f.file},
                      {"line", f.line},
                      {"module", f.module},
                      {"module_class", analysis::ModuleClassName(f.module_class)},
                      {"inlined", f.inlined}});
  }
  return frames;
}

void AddOrigin(nlohmann::json& row, const SiteLabel& label) {
  row["name"] = label.name;
  row["module"] = label.module;
  row["module_class"] = label.has_stack ? nlohmann::json(analysis::ModuleClassName(label.module_class)) : nullptr;
  row["from_game"] = label.from_game;
}

nlohmann::json SiteStatsJson(Session& session, const analysis::SiteStats& s, bool grouped) {
  const SiteLabel& label = session.Label(s.stack_id);
  nlohmann::json row = {{"stack_id", s.stack_id}};
  AddOrigin(row, label);
  row.update(nlohmann::json{{"function", label.function},
          {"location", label.location},
          {"thread", session.ThreadCell(s.stack_id, grouped)},
          {"allocations", s.allocations},
          {"bytes", s.bytes},
          {"frames_with_allocations", s.frames_with_allocations},
          {"frames_in_range", s.frames_in_range},
          {"allocs_per_frame_median", s.allocs_per_frame_median},
          {"bytes_per_frame_median", s.bytes_per_frame_median},
          {"size_min", s.size_min},
          {"size_max", s.size_max},
          {"stack", StackJson(session, s.stack_id)}});
  return row;
}

nlohmann::json FilterJson(const Session& session, const Selection& selection) {
  nlohmann::json size = nullptr;
  if (selection.size_bin)
    size = {{"bin", *selection.size_bin},
            {"min", analysis::SizeBinMin(*selection.size_bin)},
            {"max", analysis::SizeBinMax(*selection.size_bin)}};
  return {{"search", selection.search},
          {"size_bin", size},
          {"group_by_function", selection.group_by_function},
          {"classes", session.class_filter().Describe()}};
}

nlohmann::json HistogramJson(const analysis::SizeHistogram& h) {
  nlohmann::json bins = nlohmann::json::array();
  for (int b = h.first_bin; b <= h.last_bin; ++b) {
    if (h.bins[b].allocations == 0) continue;
    bins.push_back({{"bin", b},
                    {"min", analysis::SizeBinMin(b)},
                    {"max", analysis::SizeBinMax(b)},
                    {"label", FormatSizeBin(b)},
                    {"allocations", h.bins[b].allocations},
                    {"bytes", h.bins[b].bytes}});
  }
  return bins;
}

nlohmann::json HeaderJson(Session& session) {
  const analysis::ProgramEnd end = analysis::HowProgramEnded(session.capture());
  // The class toggles' figures (null while a preview has none).
  nlohmann::json classes = nullptr;
  if (session.HasClassSeries()) {
    const analysis::ModuleClassTotals& totals = session.TotalsByClass();
    classes = nlohmann::json::object();
    for (analysis::ModuleClass c : analysis::AllModuleClasses())
      classes[analysis::ModuleClassName(c)] = {{"allocations", totals.allocations[static_cast<int>(c)]},
                                               {"bytes", totals.bytes[static_cast<int>(c)]}};
  }
  return {{"classes", std::move(classes)},
          {"frames_rendered", session.heap().frames.frames_rendered},
          {"program_end", analysis::DescribeProgramEnd(end)},
          {"live_at_end", {{"word", analysis::LiveAtEndWord(end)}, {"bytes", session.heap().leaks.total_bytes}}},
          {"notes", analysis::CaptureNotes(session.capture(), session.heap())},
          {"attach", analysis::DescribeAttach(session.capture())},
          {"freed_before_attach", session.heap().anomalies.freed_before_attach}};
}

}  // namespace memframe::viewer
