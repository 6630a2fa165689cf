// The comparison as text and JSON, and RunCompare (memframe/report/compare.h).
#include <cmath>
#include <map>

#include "memframe/report/compare.h"
#include "memframe/report/report.h"
#include "report_input.h"
#include "report_json_common.h"
#include "report_text_common.h"
#include "text_table.h"
#include "memframe/command_line.h"

namespace memframe::analysis {

namespace {

const char* ChangeName(SiteComparison::Change c) {
  switch (c) {
    case SiteComparison::Change::kNew: return "new";
    case SiteComparison::Change::kGone: return "gone";
    case SiteComparison::Change::kChanged: return "changed";
    case SiteComparison::Change::kSame: return "same";
  }
  return "";
}

// "+12%", "-3%"; "new" from nothing.
std::string Change(double base, double next) {
  if (base == 0) return next == 0 ? "0%" : "new";
  const double growth = (next - base) / base;
  return (growth < 0 ? "-" : "+") + FormatPercent(std::fabs(growth));
}

std::string PhaseFrames(const std::optional<Phase>& p) { return p ? RangeText(p->frames) : "-"; }

int64_t LiveGrowth(const Phase& p) { return static_cast<int64_t>(p.live_after) - static_cast<int64_t>(p.live_before); }

std::string PhaseChange(const PhaseComparison& p) {
  if (!p.base) return "only in new";
  if (!p.next) return "only in base";
  return FormatSignedBytes(LiveGrowth(*p.next) - LiveGrowth(*p.base));
}

json SideJson(const SideFigures& s, uint64_t frames) {
  return {{"allocations", s.allocations},
          {"bytes", s.bytes},
          {"allocations_per_frame", PerFrame(s.allocations, frames)},
          {"bytes_per_frame", PerFrame(s.bytes, frames)}};
}

json PhaseJson(const std::optional<Phase>& p) {
  if (!p) return nullptr;
  return {{"frames", {{"from", p->frames.from}, {"to", p->frames.to}}},
          {"live_before", p->live_before},
          {"live_after", p->live_after},
          {"live_growth", LiveGrowth(*p)}};
}

// The site rows, each row's figures as printed; unless `all`, rows whose
// figures print alike (a driver's many stacks that each allocate once in
// a run) are one row, the first of them, with how many more there are.
void WriteSiteRows(const CaptureComparison& c, bool all, std::ostream& out) {
  const uint64_t bf = c.base_steady_frames, nf = c.next_steady_frames;
  struct Row {
    std::vector<std::string> figures;
    const SiteComparison* site;
    uint64_t alike = 0;
  };
  std::vector<Row> rows;
  std::map<std::vector<std::string>, size_t> row_of;
  for (const SiteComparison& s : c.sites) {
    const double sba = PerFrame(s.base.allocations, bf), sna = PerFrame(s.next.allocations, nf);
    const double sbb = PerFrame(s.base.bytes, bf), snb = PerFrame(s.next.bytes, nf);
    std::vector<std::string> figures = {ChangeName(s.change), ModuleClassName(s.module_class), FormatRate(sba),
                                        FormatRate(sna),      FormatSignedRate(sna - sba),     FormatByteRate(sbb),
                                        FormatByteRate(snb),  FormatSignedByteRate(snb - sbb)};
    if (!all) {
      auto [it, inserted] = row_of.try_emplace(figures, rows.size());
      if (!inserted) {
        ++rows[it->second].alike;
        continue;
      }
    }
    rows.push_back({std::move(figures), &s});
  }
  TextTable table({{"change", true}, {"class", true}, {"allocs base"}, {"new"}, {"delta"}, {"bytes base"}, {"new"},
                   {"delta"}, {"location", true}, {"site", true}});
  uint64_t folded = 0;
  for (Row& r : rows) {
    folded += r.alike;
    std::vector<std::string> cells = std::move(r.figures);
    cells.push_back(r.site->location.empty() ? "-" : r.site->location);
    cells.push_back(r.alike ? r.site->name + " (and " + Plural(r.alike, "more site") + " alike)" : r.site->name);
    table.AddRow(std::move(cells));
  }
  table.Write(out, "  ");
  if (folded) out << "  (" << Plural(folded, "site") << " folded into the rows alike; --all lists each)\n";
}

}  // namespace

void WriteComparisonText(const CaptureComparison& c, const std::string& base_path, const std::string& next_path,
                         bool all, std::ostream& out) {
  const uint64_t bf = c.base_steady_frames, nf = c.next_steady_frames;
  out << "memframe compare: " << base_path << " (base, " << Plural(bf, "steady frame") << ") -> " << next_path
      << " (new, " << Plural(nf, "steady frame") << ")\n\n";
  TextTable totals({{"", true}, {"base"}, {"new"}, {"change"}});
  const double ba = PerFrame(c.base_total.allocations, bf), na = PerFrame(c.next_total.allocations, nf);
  const double bb = PerFrame(c.base_total.bytes, bf), nb = PerFrame(c.next_total.bytes, nf);
  totals.AddRow({"allocations per steady frame", FormatRate(ba), FormatRate(na), Change(ba, na)});
  totals.AddRow({"bytes per steady frame", FormatByteRate(bb), FormatByteRate(nb), Change(bb, nb)});
  totals.AddRow({c.leaks_compared ? "leaked bytes" : "live at end", FormatBytes(c.base_leaked_bytes),
                 FormatBytes(c.next_leaked_bytes),
                 c.leaks_compared ? Change(static_cast<double>(c.base_leaked_bytes), static_cast<double>(c.next_leaked_bytes))
                                  : "not compared"});
  totals.Write(out, "  ");
  if (!c.leaks_compared) out << "  Leaks are not compared: " << LeaksNotComparedReason(c) << ".\n";

  out << "\nSites that changed, per steady frame (" << Plural(c.unchanged_sites, "site") << " unchanged):\n";
  if (c.sites.empty())
    out << "  none\n";
  else
    WriteSiteRows(c, all, out);

  out << "\nLive-heap growth by phase (phases paired by kind and ordinal):\n";
  TextTable phases({{"phase", true}, {"base", true}, {"growth"}, {"new", true}, {"growth"}, {"change"}});
  for (const PhaseComparison& p : c.phases) {
    phases.AddRow({PhaseLabel(p.kind, p.ordinal), PhaseFrames(p.base), p.base ? FormatSignedBytes(LiveGrowth(*p.base)) : "-",
                   PhaseFrames(p.next), p.next ? FormatSignedBytes(LiveGrowth(*p.next)) : "-", PhaseChange(p)});
  }
  phases.Write(out, "  ");

  out << "\nLeaks added:";
  if (!c.leaks_compared) {
    out << " not compared (above)\n";
  } else if (c.leaks_added.empty()) {
    out << "\n  none\n";
  } else {
    out << '\n';
    TextTable leaks({{"class", true}, {"blocks base"}, {"new"}, {"bytes base"}, {"new"}, {"site", true}});
    for (const LeakComparison& l : c.leaks_added)
      leaks.AddRow({ModuleClassName(l.module_class), FormatCount(l.base_blocks), FormatCount(l.next_blocks),
                    FormatBytes(l.base_bytes), FormatBytes(l.next_bytes), l.name});
    leaks.Write(out, "  ");
  }
}

void WriteComparisonJson(const CaptureComparison& c, const std::string& base_path, const std::string& next_path,
                         const std::vector<std::string>& regressions, std::ostream& out) {
  json sites = json::array();
  for (const SiteComparison& s : c.sites) {
    sites.push_back({{"change", ChangeName(s.change)},
                     {"name", s.name},
                     {"function", s.function},
                     {"location", s.location},
                     {"module_class", ModuleClassName(s.module_class)},
                     {"base", SideJson(s.base, c.base_steady_frames)},
                     {"new", SideJson(s.next, c.next_steady_frames)}});
  }
  json phases = json::array();
  for (const PhaseComparison& p : c.phases) {
    phases.push_back({{"phase", PhaseLabel(p.kind, p.ordinal)},
                      {"kind", PhaseKindName(p.kind)},
                      {"ordinal", p.ordinal},
                      {"base", PhaseJson(p.base)},
                      {"new", PhaseJson(p.next)}});
  }
  json leaks = json::array();
  for (const LeakComparison& l : c.leaks_added) {
    leaks.push_back({{"name", l.name},
                     {"module_class", ModuleClassName(l.module_class)},
                     {"base", {{"blocks", l.base_blocks}, {"bytes", l.base_bytes}}},
                     {"new", {{"blocks", l.next_blocks}, {"bytes", l.next_bytes}}}});
  }
  auto side = [](const std::string& path, uint64_t frames, const SideFigures& total, const ProgramEnd& end,
                 uint64_t live) {
    json j = SideJson(total, frames);
    j["capture"] = path;
    j["steady_frames"] = frames;
    j["program_end"] = DescribeProgramEnd(end);
    j["live_at_end_bytes"] = live;
    j["leaked_bytes"] = end.LiveBlocksAreLeaks() ? json(live) : json(nullptr);
    return j;
  };
  Emit({{"base", side(base_path, c.base_steady_frames, c.base_total, c.base_end, c.base_leaked_bytes)},
        {"new", side(next_path, c.next_steady_frames, c.next_total, c.next_end, c.next_leaked_bytes)},
        {"leaks_compared", c.leaks_compared},
        {"leaks_not_compared_because", LeaksNotComparedReason(c)},
        {"sites", std::move(sites)},
        {"unchanged_sites", c.unchanged_sites},
        {"phases", std::move(phases)},
        {"leaks_added", std::move(leaks)},
        {"regressions", regressions}},
       out);
}

int RunCompare(const CompareRequest& request, std::ostream& out, std::ostream& err) {
  Capture base, next;
  if (int code = LoadCaptureForReport(request.base_path, &base, err); code >= 0) return code;
  if (int code = LoadCaptureForReport(request.next_path, &next, err); code >= 0) return code;
  HeapAnalysis base_heap = AnalyzeHeap(base.main), next_heap = AnalyzeHeap(next.main);
  Symbolizer base_symbols(base.main.modules, ClassifierFor(base.main));
  Symbolizer next_symbols(next.main.modules, ClassifierFor(next.main));
  const CaptureComparison c =
      CompareCaptures({base, base_heap, base_symbols}, {next, next_heap, next_symbols});
  std::vector<std::string> regressions;
  if (request.fail_on_regression) regressions = FindRegressions(c, *request.fail_on_regression);
  if (request.json) {
    WriteComparisonJson(c, request.base_path, request.next_path, regressions, out);
  } else {
    WriteComparisonText(c, request.base_path, request.next_path, request.all, out);
    if (request.fail_on_regression) {
      out << "\nRegressions past " << *request.fail_on_regression << "%:" << (regressions.empty() ? " none\n" : "\n");
      for (const std::string& r : regressions) out << "  " << r << "\n";
    }
  }
  // A damaged capture's figures stop at the damage: no verdict to trust.
  if (FinishWithDamage(base, err) != 0 || FinishWithDamage(next, err) != 0) return kExitMemframeError;
  return regressions.empty() ? 0 : 1;
}

}  // namespace memframe::analysis
