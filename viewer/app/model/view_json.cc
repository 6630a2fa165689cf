#include "view_json.h"

#include "memframe/analysis/program_end.h"
#include "memframe/report/capture_notes.h"

namespace memframe::viewer {

analysis::SiteView SiteViewOf(Session& session, const analysis::SiteStats& stats, bool grouped,
                              const std::vector<uint32_t>& members) {
  analysis::SiteView v;
  v.stats = stats;
  v.stack = session.Stack(stats.stack_id);
  const SiteLabel& label = session.Label(stats.stack_id);
  v.name = label.name;
  v.module = label.module;
  v.module_class = label.module_class;
  v.function = label.function;
  v.location = v.user_location = label.location;
  v.from_game = label.from_game;
  const analysis::Stream& stream = session.capture().main;
  if (grouped) {
    analysis::SetSiteThreads(v, session.SiteGroups().index.Find(stats.stack_id), stream);
  } else if (members.size() > 1) {
    analysis::SiteHistory all;
    for (uint32_t id : members) {
      if (const analysis::SiteHistory* site = session.heap().sites.Find(id))
        for (const analysis::SiteThread& t : site->threads) analysis::AddSiteThread(all.threads, t.thread, t.allocations);
    }
    analysis::SetSiteThreads(v, &all, stream);
  } else {
    analysis::SetSiteThreads(v, session.heap().sites.Find(stats.stack_id), stream);
  }
  return v;
}

nlohmann::json SiteStatsJson(Session& session, const analysis::SiteStats& s, analysis::JsonStackTable& stacks,
                             bool grouped) {
  return analysis::SiteJson(SiteViewOf(session, s, grouped), stacks);
}

nlohmann::json StackRefJson(Session& session, uint32_t stack_id, analysis::JsonStackTable& stacks) {
  if (stack_id == 0) return nullptr;
  analysis::SiteStats stats;
  stats.stack_id = stack_id;
  return analysis::StackRefJson(SiteViewOf(session, stats), stacks);
}

void AddStacks(nlohmann::json& data, const analysis::JsonStackTable& stacks) {
  analysis::json written = analysis::json::object();
  stacks.WriteInto(written);
  data["stacks"] = std::move(written["stacks"]);
  data["stack_frames"] = std::move(written["stack_frames"]);
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
    if (h.bins[b].allocations != 0) bins.push_back(nlohmann::json(analysis::SizeBinJson(b, h.bins[b])));
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
