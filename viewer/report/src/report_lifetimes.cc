// `lifetimes`: each call site's class (lifetimes.h), the allocator that
// would serve it, its capacity, and what it takes off the general heap.
#include <array>

#include "memframe/analysis/lifetimes.h"
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

std::array<ClassTotals, kClasses.size()> Totals(const LifetimeReport& r) {
  std::array<ClassTotals, kClasses.size()> totals{};
  for (const SiteLifetime& s : r.sites) {
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

JudgedFrames Judged(const ReportInput& input) { return JudgedFramesOf(input, input.heap.frames.All()); }

void WriteAdviceText(const LifetimeReport& r, const std::vector<LevelLoad>& loads, std::ostream& out) {
  const FrameArenaAdvice& a = r.frame_arena;
  if (a.calls_saved) {
    out << "\nFrame arena: " << FormatBytes(a.p99_bytes) << " (the 99th percentile of the frame sites' bytes over "
        << Plural(a.frames, "judged frame") << "; the largest frame " << FormatBytes(a.max_bytes) << ") saves "
        << FormatCount(a.calls_saved) << " malloc+free calls and " << FormatBytes(a.bytes_saved) << " of heap traffic\n";
  }
  for (const LevelLoad& load : loads) {
    out << "Level allocator for the load in frames " << load.frames.from << ".." << load.frames.to << ": "
        << FormatBytes(load.kept_bytes) << " in " << Plural(load.kept_blocks, "block")
        << " still live at its end; it saves " << FormatCount(load.allocations) << " allocation calls and "
        << FormatBytes(load.bytes_allocated) << "\n";
  }
}

}  // namespace

void WriteLifetimesText(const ReportInput& input, std::ostream& out) {
  const JudgedFrames judged = Judged(input);
  LifetimeReport r = AnalyzeLifetimes(input.capture.main, judged);
  auto totals = Totals(r);
  out << "Call sites by how long their blocks live (rules in REPORTS.md), judged by the blocks allocated in "
      << JudgedFramesText(judged) << "; phase boundaries: ";
  if (r.boundary_frames.empty()) out << "none";
  const char* first = r.boundary_frames.size() == 1 ? "frame " : "frames ";
  for (size_t i = 0; i < r.boundary_frames.size(); ++i) out << (i ? ", " : first) << r.boundary_frames[i];
  out << "\n\n";
  TextTable summary({{"class", true}, {"sites"}, {"malloc+free calls"}, {"bytes"}, {"advice", true}});
  for (LifetimeClass c : kClasses) {
    const ClassTotals& t = totals[static_cast<size_t>(c)];
    summary.AddRow({LifetimeClassName(c), FormatCount(t.sites), FormatCount(t.calls), FormatBytes(t.bytes),
                    LifetimeAdvice(c)});
  }
  summary.Write(out);
  WriteAdviceText(r, AnalyzeLevelLoads(input.capture.main, FindPhases(input.heap.frames)), out);

  out << "\nSites that belong off the general heap, by calls saved:\n\n";
  if (!ClassesShown(input).empty()) out << "(" << ClassesShown(input).substr(2) << "\n";
  TextTable table({{"#"}, {"lifetime", true}, {"calls saved"}, {"bytes saved"}, {"capacity", true}, {"max life"},
                   {"thread", true}, {"class", true}, {"module", true}, {"function", true}, {"location", true}});
  size_t shown = 0, hidden = 0;
  for (const SiteLifetime& s : r.sites) {
    if (s.lifetime == LifetimeClass::kGeneral || !KeepsSite(input, s.stack_id)) continue;
    if (shown == kLifetimeRows) {
      ++hidden;
      continue;
    }
    SiteView v = NameStack(s.stack_id, input);
    table.AddRow({std::to_string(++shown), LifetimeClassName(s.lifetime), FormatCount(s.calls_saved),
                  FormatBytes(s.bytes_saved), Capacity(s), Plural(s.lifetime_frames_max, "frame"), v.thread, ClassCell(v),
                  ModuleCell(v), NameCell(v), v.location});
  }
  if (shown == 0) {
    out << "none\n";
    return;
  }
  if (!ShowsThreads(input)) table.Omit("thread");
  table.Write(out);
  if (hidden) out << "... and " << FormatCount(hidden) << " more (--json lists every site)\n";
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
  const JudgedFrames judged = Judged(input);
  LifetimeReport r = AnalyzeLifetimes(input.capture.main, judged);
  auto totals = Totals(r);
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
    json site = StackRefJson(NameStack(s.stack_id, input), input);
    site["class"] = LifetimeClassName(s.lifetime);
    site["advice"] = LifetimeAdvice(s.lifetime);
    site["allocations"] = s.allocations;
    site["frees"] = s.frees;
    site["bytes"] = s.bytes;
    site["size_min"] = s.size_min;
    site["size_max"] = s.size_max;
    site["freed_same_frame"] = s.freed_same_frame;
    site["freed_at_boundary"] = s.freed_at_boundary;
    site["lived_to_end"] = s.lived_to_end;
    site["lifetime_frames_max"] = s.lifetime_frames_max;
    site["ring_delay_frames"] = s.ring_delay_frames;
    site["ring_frees"] = s.ring_frees;
    site["peak_live_blocks"] = s.peak_live_blocks;
    site["peak_live_bytes"] = s.peak_live_bytes;
    site["calls_saved"] = s.calls_saved;
    site["bytes_saved"] = s.bytes_saved;
    sites.push_back(std::move(site));
  }
  Emit({{"judged_frames", JudgedFramesJson(judged)},
        {"share", kLifetimeShare},
        {"pool_turnover", kPoolTurnover},
        {"boundary_frames", r.boundary_frames},
        {"last_ended_frame", r.has_teardown ? json(r.last_ended_frame) : json(nullptr)},
        {"classes", std::move(classes)},
        {"frame_arena", FrameArenaJson(r.frame_arena)},
        {"level_loads", LoadsJson(AnalyzeLevelLoads(input.capture.main, FindPhases(input.heap.frames)))},
        {"sites", std::move(sites)}},
       input, out);
}

}  // namespace memframe::analysis
