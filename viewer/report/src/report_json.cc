// The machine-readable reports (REPORTS.md): one JSON object per run, times
// in nanoseconds, bytes as exact integers.
#include <cstdint>
#include <cstdio>

#include "report_json_common.h"

#include "memframe/analysis/program_end.h"

namespace memframe::analysis {

namespace {

json ViewsJson(const std::vector<SiteView>& views, const ReportInput& input) {
  json out = json::array();
  for (const SiteView& v : views) out.push_back(SiteJson(v, input.json_stacks));
  return out;
}

}  // namespace

json SitesJson(const ReportInput& input, const std::vector<SiteStats>& sites) {
  json out = json::array();
  for (const SiteStats& s : sites) {
    if (KeepsSite(input, s.stack_id)) out.push_back(SiteJson(MakeSiteView(s, input), input.json_stacks));
  }
  return out;
}

json ClassesShownJson(const ReportInput& input) {
  json shown = json::array();
  for (ModuleClass c : AllModuleClasses()) {
    if (input.options.classes.Keeps(c)) shown.push_back(ModuleClassName(c));
  }
  return shown;
}

namespace {

// Compact, replacing invalid UTF-8 (a path or symbol in another encoding)
// instead of throwing: the report must not fail on one odd name.
std::string Compact(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

json ScopeJson(const ReportScope& scope, const ReportInput& input) {
  json j = {{"phase", scope.phase ? json(PhaseName(*scope.phase)) : json(nullptr)},
            {"kind", scope.phase ? json(PhaseKindName(scope.phase->kind)) : json(nullptr)},
            {"frames", RangeJson(scope.range)},
            {"frame_count", FramesIn(input, scope.range)},
            {"judged_frames", JudgedFramesJson(scope.judged)}};
  if (scope.phase && scope.phase->kind == PhaseKind::kSteady) {
    j["allocations_per_frame_median"] = scope.phase->allocation_spike.median;
    j["bytes_per_frame_median"] = scope.phase->bytes_spike.median;
  }
  return j;
}

namespace {

// An object that lists rows (a phase's "sites": objects naming a stack_id).
bool HoldsRows(const json& j) {
  if (!j.is_object()) return false;
  for (const auto& [key, value] : j.items())
    if (value.is_array() && !value.empty() && value.front().is_object() && value.front().contains("stack_id"))
      return true;
  return false;
}

void EmitExpanded(const json& j, size_t indent, std::ostream& out);

// A member of an expanded object: an array or object one element a line
// (an element that lists rows expanded in turn); anything else on its line.
void EmitMember(const json& value, size_t indent, bool top_level, std::ostream& out) {
  const bool lines = !value.empty() && (value.is_array() || (value.is_object() && top_level));
  if (!lines || (value.is_object() && !top_level)) {
    out << Compact(value);
    return;
  }
  const std::string pad(indent + 2, ' ');
  out << (value.is_array() ? "[\n" : "{\n");
  size_t index = 0;
  for (auto e = value.begin(); e != value.end(); ++e, ++index) {
    out << pad;
    if (value.is_object()) out << Compact(e.key()) << ": ";
    if (HoldsRows(e.value())) {
      EmitExpanded(e.value(), indent + 2, out);
    } else {
      out << Compact(e.value());
    }
    out << (index + 1 < value.size() ? ",\n" : "\n");
  }
  out << std::string(indent, ' ') << (value.is_array() ? ']' : '}');
}

void EmitExpanded(const json& j, size_t indent, std::ostream& out) {
  out << "{\n";
  size_t index = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++index) {
    out << std::string(indent + 2, ' ') << Compact(it.key()) << ": ";
    EmitMember(it.value(), indent + 2, indent == 0, out);
    out << (index + 1 < j.size() ? ",\n" : "\n");
  }
  out << std::string(indent, ' ') << '}';
}

}  // namespace

void Emit(const json& j, std::ostream& out) {
  // One line per top-level key, and per element of a top-level array or
  // object (a row, a stack, a frame), and per row of a per-phase answer:
  // readable, greppable, and no larger than what it holds (indenting every
  // field of 50,000 rows doubled them).
  if (!j.is_object() || j.empty()) {
    out << Compact(j) << '\n';
    return;
  }
  EmitExpanded(j, 0, out);
  out << '\n';
}

void Emit(json j, const ReportInput& input, std::ostream& out) {
  input.json_stacks.WriteInto(j);
  Emit(j, out);
}

// The blocks live at the end, and whether they are leaks (program_end.h).
json LiveAtEndJson(const ReportInput& input) {
  const LeakReport& leaks = input.heap.leaks;
  return {{"blocks", leaks.total_blocks},
          {"bytes", leaks.total_bytes},
          {"are_leaks", HowProgramEnded(input.capture).LiveBlocksAreLeaks()}};
}

// null for a program without an allocator of its own.
json OwnAllocatorJson(const ProcessInfo::OwnAllocator& own) {
  if (!own.present) return nullptr;
  return {{"name", own.name}, {"hooked", own.hooked}, {"refused", own.refused}};
}

json AllocatorApisJson(const std::vector<ProcessInfo::AllocatorApi>& apis) {
  json out = json::array();
  for (const ProcessInfo::AllocatorApi& api : apis)
    out.push_back({{"name", api.name}, {"library", api.library}, {"hooked", api.hooked}});
  return out;
}

namespace {

// null for a capture of the whole run.
json KeptWindowJson(const Capture& c) {
  const KeptWindowInfo& kept = c.recorder.kept_window;
  if (!kept.present) return nullptr;
  const ProcessInfo::WindowStart& window = c.main.process.window;
  json totals = nullptr;
  if (const FrameTotalsSeries* t = MainFrameTotals(c)) {
    totals = {{"first_frame", t->first_frame}, {"allocs", t->allocs},           {"frees", t->frees},
              {"allocated_bytes", t->allocated_bytes}, {"freed_bytes", t->freed_bytes}, {"live_bytes", t->live_bytes}};
  }
  return {{"keep_last_ms", kept.keep_last_ms},
          {"saved_for", kept.saved_for},
          {"first_unix_ns", kept.first_unix_ns},
          {"starts_in_run", window.present},
          {"first_full_frame", window.first_frame},
          {"dropped_events", window.dropped_events},
          {"text", DescribeAttach(c)},
          {"frame_totals", totals}};
}

}  // namespace

void WriteSummaryJson(const ReportInput& input, std::ostream& out) {
  const Capture& c = input.capture;
  const Stream& s = c.main;
  const HeapAnalysis& h = input.heap;
  json capture = {{"path", c.path},
                  {"program", s.process.executable},
                  {"pid", s.process.pid},
                  {"exit_status", c.recorder.finished && !c.recorder.detached ? json(c.recorder.exit_status) : json(nullptr)},
                  {"attached", s.process.attached},
                  {"detached", c.recorder.detached},
                  {"attach_pause_us", c.recorder.attach_pause_us},
                  {"kept_window", KeptWindowJson(c)},
                  {"own_allocator", OwnAllocatorJson(s.process.own_allocator)},
                  {"allocator_apis", AllocatorApisJson(s.process.allocator_apis)},
                  {"termination_signal", c.recorder.finished ? json(c.recorder.termination_signal) : json(nullptr)},
                  {"ended", DescribeProgramEnd(HowProgramEnded(c))},
                  {"complete", c.complete()},
                  {"error", c.damage}};
  json others = json::array();
  for (const StreamSummary& o : c.other_streams)
    others.push_back({{"pid", o.pid}, {"program", o.executable}, {"events", o.events}});
  uint64_t dropped = 0;
  for (const Thread& t : s.threads) dropped += t.dropped;
  ModuleClassTotals totals = TotalsByClass(input, h.sites, AllFramesRange(input));
  json phases = json::array();
  for (const ReportScope& scope : JudgedScopes(input)) {
    json phase = ScopeJson(scope, input);
    phase["hidden_sites"] = ViewsJson(HiddenSiteViews(input, scope.judged, 10), input);
    phases.push_back(std::move(phase));
  }
  json classes = json::array();
  for (ModuleClass c : AllModuleClasses()) {
    classes.push_back({{"module_class", ModuleClassName(c)},
                       {"allocations", totals.allocations[static_cast<int>(c)]},
                       {"bytes", totals.bytes[static_cast<int>(c)]}});
  }
  json j = {{"capture", std::move(capture)},
            {"frames", h.frames.frames_rendered},
            {"frame_source", h.frames.frame_source},
            {"threads", GameThreadCount(s.threads)},
            {"allocations", h.allocations},
            {"frees", h.frees},
            {"bytes_allocated", h.bytes_allocated},
            {"peak_live_bytes", h.peak_live_bytes},
            {"peak_live_frame", h.peak_live_frame},
            {"leaks", LiveAtEndJson(input)},
            {"module_classes", std::move(classes)},
            {"module_classes_shown", ClassesShownJson(input)},
            {"phases", std::move(phases)},
            {"events", EventCount(s)},
            {"dropped_events", dropped},
            {"unrecorded_in_signal_handlers", s.end_unrecorded_in_signal_handlers},
            {"unknown_frees", h.anomalies.unknown_frees},
            {"freed_before_attach", h.anomalies.freed_before_attach},
            {"freed_after_release", h.anomalies.freed_after_release},
            {"allocs_over_live", h.anomalies.allocs_over_live},
            {"handoffs_repaired", s.handoffs_repaired},
            {"other_processes", std::move(others)}};
  Emit(std::move(j), input, out);
}

void WriteHiddenJson(const ReportInput& input, std::ostream& out) {
  json phases = json::array();
  for (const ReportScope& scope : JudgedScopes(input)) {
    json phase = ScopeJson(scope, input);
    phase["sites"] = ViewsJson(HiddenSiteViews(input, scope.judged, SIZE_MAX), input);
    phases.push_back(std::move(phase));
  }
  Emit({{"range", RangeJson(CompleteFramesRange(input))},
        {"min_fraction", input.options.min_fraction},
        {"module_classes_shown", ClassesShownJson(input)},
        {"phases", std::move(phases)}},
       input, out);
}

void WriteLeaksJson(const ReportInput& input, std::ostream& out) {
  const LeakReport& leaks = GroupedLeaks(input);
  FrameRange all = AllFramesRange(input);
  const uint64_t all_frames = FramesIn(input, all);
  std::vector<SiteView> views;
  std::vector<const LeakSite*> shown;
  for (const LeakSite& leak : leaks.sites) {
    if (!KeepsSite(input, leak.stack_id)) continue;
    shown.push_back(&leak);
    const SiteHistory* history = SiteGroups(input).index.Find(leak.stack_id);
    SiteStats stats = history ? SummarizeSite(*history, all, all_frames) : SiteStats{};
    stats.stack_id = leak.stack_id;
    views.push_back(MakeSiteView(stats, input));
  }
  NameCallersOfLookAlikes(views);
  json sites = json::array();
  for (size_t i = 0; i < views.size(); ++i)
    sites.push_back(LeakJson(views[i], shown[i]->blocks, shown[i]->bytes, input.json_stacks));
  Emit({{"total_blocks", leaks.total_blocks},
        {"total_bytes", leaks.total_bytes},
        {"are_leaks", HowProgramEnded(input.capture).LiveBlocksAreLeaks()},
        {"program_end", DescribeProgramEnd(HowProgramEnded(input.capture))},
        {"module_classes_shown", ClassesShownJson(input)},
        {"sites", std::move(sites)}},
       input, out);
}

void WriteSitesJson(const ReportInput& input, std::ostream& out) {
  json phases = json::array();
  for (const ReportScope& scope : PhaseScopes(input)) {
    json phase = ScopeJson(scope, input);
    phase["sites"] = SitesJson(input, SitesInRange(input.heap.sites, scope.range, FramesIn(input, scope.range)));
    phases.push_back(std::move(phase));
  }
  Emit({{"module_classes_shown", ClassesShownJson(input)}, {"phases", std::move(phases)}}, input, out);
}

}  // namespace memframe::analysis
