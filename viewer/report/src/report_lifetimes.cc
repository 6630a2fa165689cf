// `lifetimes`: each call site's class (lifetimes.h), the allocator that
// would serve it, its capacity, and what it takes off the general heap.
#include <array>

#include "memframe/analysis/lifetimes.h"
#include "memframe/analysis/site_origin.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

constexpr size_t kLifetimeRows = 50;
constexpr std::array<LifetimeClass, 6> kClasses = {LifetimeClass::kFrame,     LifetimeClass::kLevel,
                                                   LifetimeClass::kRing,      LifetimeClass::kPool,
                                                   LifetimeClass::kLongLived, LifetimeClass::kGeneral};

struct ClassTotals {
  uint64_t sites = 0, calls = 0, bytes = 0;
};

// The classes' totals over the sites --only / --hide keep.
std::array<ClassTotals, kClasses.size()> Totals(const LifetimeReport& r, const ReportInput& input) {
  std::array<ClassTotals, kClasses.size()> totals{};
  for (const SiteLifetime& s : r.sites) {
    if (!KeepsSite(input, s.stack_id)) continue;
    ClassTotals& t = totals[static_cast<size_t>(s.lifetime)];
    t.sites++;
    t.calls += s.allocations + s.frees;
    t.bytes += s.bytes;
  }
  return totals;
}

std::string Capacity(const SiteLifetime& s) {
  const bool one_size = s.size_min == s.size_max;
  if (s.lifetime == LifetimeClass::kPool || (s.lifetime == LifetimeClass::kRing && one_size))
    return FormatCount(s.peak_live_blocks) + " x " + FormatBytes(s.size_max);
  return FormatBytes(s.peak_live_bytes) + " in " + FormatCount(s.peak_live_blocks);
}

// A site of code the user can change (site_origin.h OwnedByTheGame).
bool Owned(const SiteView& v) { return !v.stack.empty() && OwnedByTheGame(v.module_class); }

// The frame arena is advice for the game's code: sized by its sites alone.
LifetimeReport Analyze(const ReportInput& input, const ReportScope& scope) {
  LifetimeReport r = AnalyzeLifetimes(input.capture.main, FindPhases(input.heap.frames), scope.judged);
  std::vector<SiteLifetime> owned;
  for (const SiteLifetime& s : r.sites)
    if (KeepsSite(input, s.stack_id) && Owned(NameStack(s.stack_id, input))) owned.push_back(s);
  r.frame_arena = AdviseFrameArena(input.capture.main, owned,
                                   scope.judged.steady_only ? scope.judged.ranges : std::vector<FrameRange>{});
  return r;
}

// The load phases' names, in the order AnalyzeLevelLoads lists the loads.
std::vector<std::string> LoadNames(const ReportInput& input) {
  std::vector<std::string> names;
  for (const Phase& p : FindPhases(input.heap.frames))
    if (p.kind == PhaseKind::kLoad) names.push_back(PhaseName(p));
  return names;
}

void WriteFrameArenaText(const FrameArenaAdvice& a, std::ostream& out) {
  if (!a.calls_saved) return;
  out << "\nFrame arena for the game's code: " << FormatBytes(a.p99_bytes)
      << " (the 99th percentile of its frame sites' bytes over "
      << Plural(a.frames, "judged frame") << "; the largest frame " << FormatBytes(a.max_bytes) << ") saves "
      << FormatCount(a.calls_saved) << " malloc+free calls and " << FormatBytes(a.bytes_saved) << " of heap traffic\n";
}

void WriteLevelLoadsText(const ReportInput& input, std::ostream& out) {
  const std::vector<LevelLoad> loads = AnalyzeLevelLoads(input.capture.main, FindPhases(input.heap.frames));
  const std::vector<std::string> names = LoadNames(input);
  if (!loads.empty()) out << '\n';
  for (size_t i = 0; i < loads.size(); ++i) {
    const LevelLoad& load = loads[i];
    out << "Level allocator for " << names.at(i) << " (" << RangeText(load.frames) << "): "
        << FormatBytes(load.kept_bytes) << " in " << Plural(load.kept_blocks, "block")
        << " still live at its end; it saves " << FormatCount(load.allocations) << " allocation calls and "
        << FormatBytes(load.bytes_allocated) << "\n";
  }
}

// One scope's classes, frame arena and sites; advice only for the sites the
// game's code led to (what the user can change), the others counted.
void WriteScopeText(const ReportInput& input, const ReportScope& scope, const LifetimeReport& r, std::ostream& out) {
  auto totals = Totals(r, input);
  out << '\n' << ScopeTitle(scope, input) << ":\n\n";
  TextTable summary({{"class", true}, {"sites"}, {"malloc+free calls"}, {"bytes"}, {"advice", true}});
  for (LifetimeClass c : kClasses) {
    const ClassTotals& t = totals[static_cast<size_t>(c)];
    summary.AddRow({LifetimeClassName(c), FormatCount(t.sites), FormatCount(t.calls), FormatBytes(t.bytes),
                    LifetimeAdvice(c)});
  }
  summary.Write(out, "  ");
  WriteFrameArenaText(r.frame_arena, out);

  out << "\nSites of the game's and its engine's code that belong off the general heap, by calls saved"
      << (ClassesShown(input).empty() ? "" : ClassesShown(input)) << ":\n\n";
  TextTable table({{"#"}, {"lifetime", true}, {"calls saved"}, {"bytes saved"}, {"capacity", true}, {"max life"},
                   {"thread", true}, {"class", true}, {"module", true}, {"function", true}, {"location", true}});
  size_t shown = 0, more = 0, not_ours = 0;
  for (const SiteLifetime& s : r.sites) {
    if (s.lifetime == LifetimeClass::kGeneral || !KeepsSite(input, s.stack_id)) continue;
    SiteView v = NameStack(s.stack_id, input);
    if (!Owned(v)) {
      ++not_ours;
      continue;
    }
    if (shown == kLifetimeRows) {
      ++more;
      continue;
    }
    table.AddRow({std::to_string(++shown), LifetimeClassName(s.lifetime), FormatCount(s.calls_saved),
                  FormatBytes(s.bytes_saved), Capacity(s), Plural(s.lifetime_frames_max, "frame"), v.thread, ClassCell(v),
                  ModuleCell(v), NameCell(v), v.location});
  }
  if (shown == 0) {
    out << "  none\n";
  } else {
    if (!ShowsThreads(input)) table.Omit("thread");
    table.Write(out, "  ");
  }
  if (more) out << "  ... and " << FormatCount(more) << " more (--json lists every site)\n";
  if (not_ours)
    out << "  (" << Plural(not_ours, "site") << " in driver and system code, which the game cannot change, left "
        << "out: --json lists them)\n";
}

}  // namespace

void WriteLifetimesText(const ReportInput& input, std::ostream& out) {
  const std::vector<ReportScope> scopes = JudgedScopes(input);
  std::vector<LifetimeReport> reports;
  for (const ReportScope& scope : scopes) reports.push_back(Analyze(input, scope));
  // Boundaries come from the phases alone: the same for every scope.
  const std::vector<uint64_t>& boundaries = reports.front().boundary_frames;
  out << "Call sites by how long their blocks live (rules in REPORTS.md), judged by the blocks allocated in each "
      << "part below; phase boundaries: ";
  if (boundaries.empty()) out << "none";
  for (size_t i = 0; i < boundaries.size(); ++i) out << (i ? ", " : boundaries.size() == 1 ? "frame " : "frames ") << boundaries[i];
  out << '\n';
  const std::string note = ScopesNote(input, scopes);
  if (!note.empty()) out << "Parts: " << note << '\n';
  for (size_t i = 0; i < scopes.size(); ++i) WriteScopeText(input, scopes[i], reports[i], out);
  WriteLevelLoadsText(input, out);
}

namespace {

json FrameArenaJson(const FrameArenaAdvice& a) {
  return {{"frames", a.frames}, {"p99_bytes", a.p99_bytes}, {"max_bytes", a.max_bytes},
          {"calls_saved", a.calls_saved}, {"bytes_saved", a.bytes_saved}};
}

json LoadsJson(const std::vector<LevelLoad>& loads) {
  json rows = json::array();
  for (const LevelLoad& load : loads) {
    rows.push_back({{"frames", RangeJson(load.frames)},
                    {"allocations", load.allocations},
                    {"bytes_allocated", load.bytes_allocated},
                    {"kept_blocks", load.kept_blocks},
                    {"kept_bytes", load.kept_bytes}});
  }
  return rows;
}

}  // namespace

void WriteLifetimesJson(const ReportInput& input, std::ostream& out) {
  json phases = json::array();
  LifetimeReport any;
  for (const ReportScope& scope : JudgedScopes(input)) {
    LifetimeReport r = Analyze(input, scope);
    auto totals = Totals(r, input);
    json classes = json::array();
    for (LifetimeClass c : kClasses) {
      const ClassTotals& t = totals[static_cast<size_t>(c)];
      classes.push_back({{"class", LifetimeClassName(c)},
                         {"advice", LifetimeAdvice(c)},
                         {"sites", t.sites},
                         {"calls", t.calls},
                         {"bytes", t.bytes}});
    }
    json sites = json::array();
    for (const SiteLifetime& s : r.sites) {
      if (!KeepsSite(input, s.stack_id)) continue;
      const SiteView view = NameStack(s.stack_id, input);
      sites.push_back(LifetimeJson(s, view, Owned(view), input.json_stacks));
    }
    json phase = ScopeJson(scope, input);
    phase["classes"] = std::move(classes);
    phase["frame_arena"] = FrameArenaJson(r.frame_arena);
    phase["sites"] = std::move(sites);
    phases.push_back(std::move(phase));
    any = std::move(r);
  }
  json loads = LoadsJson(AnalyzeLevelLoads(input.capture.main, FindPhases(input.heap.frames)));
  const std::vector<std::string> names = LoadNames(input);
  for (size_t i = 0; i < loads.size(); ++i) loads[i]["phase"] = names.at(i);
  Emit({{"share", kLifetimeShare},
        {"pool_turnover", kPoolTurnover},
        {"boundary_frames", any.boundary_frames},
        {"last_ended_frame", any.has_teardown ? json(any.last_ended_frame) : json(nullptr)},
        {"phases", std::move(phases)},
        {"level_loads", std::move(loads)}},
       input, out);
}

}  // namespace memframe::analysis
