// The comparison as text and JSON, and RunCompare (memframe/report/compare.h).
#include <cmath>
#include <cstdio>

#include "memframe/report/compare.h"
#include "memframe/report/report.h"
#include "report_input.h"
#include "report_json_common.h"
#include "report_text_common.h"
#include "text_table.h"

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

std::string Rate(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", v);
  return text;
}

std::string SignedRate(double v) { return (v >= 0 ? "+" : "") + Rate(v); }

std::string Percent(double base, double next) {
  if (base == 0) return next == 0 ? "0%" : "new";
  char text[32];
  std::snprintf(text, sizeof(text), "%+.1f%%", (next - base) / base * 100.0);
  return text;
}

std::string PhaseFrames(const std::optional<Phase>& p) {
  return p ? std::string(PhaseKindName(p->kind)) + " " + RangeText(p->frames) : "-";
}

int64_t LiveGrowth(const Phase& p) { return static_cast<int64_t>(p.live_after) - static_cast<int64_t>(p.live_before); }

json SideJson(const SideFigures& s, uint64_t frames) {
  return {{"allocations", s.allocations},
          {"bytes", s.bytes},
          {"allocations_per_frame", PerFrame(s.allocations, frames)},
          {"bytes_per_frame", PerFrame(s.bytes, frames)}};
}

json PhaseJson(const std::optional<Phase>& p) {
  if (!p) return nullptr;
  return {{"phase", PhaseKindName(p->kind)},
          {"frames", {{"from", p->frames.from}, {"to", p->frames.to}}},
          {"live_before", p->live_before},
          {"live_after", p->live_after},
          {"live_growth", LiveGrowth(*p)}};
}

}  // namespace

void WriteComparisonText(const CaptureComparison& c, const std::string& base_path, const std::string& next_path,
                         std::ostream& out) {
  const uint64_t bf = c.base_steady_frames, nf = c.next_steady_frames;
  out << "memframe compare: " << base_path << " (base, " << Plural(bf, "steady frame") << ") -> " << next_path
      << " (new, " << Plural(nf, "steady frame") << ")\n\n";
  TextTable totals({{"", true}, {"base"}, {"new"}, {"change"}});
  const double ba = PerFrame(c.base_total.allocations, bf), na = PerFrame(c.next_total.allocations, nf);
  const double bb = PerFrame(c.base_total.bytes, bf), nb = PerFrame(c.next_total.bytes, nf);
  totals.AddRow({"allocations per steady frame", Rate(ba), Rate(na), Percent(ba, na)});
  totals.AddRow({"bytes per steady frame", Rate(bb), Rate(nb), Percent(bb, nb)});
  totals.AddRow({"leaked bytes", FormatCount(c.base_leaked_bytes), FormatCount(c.next_leaked_bytes),
                 Percent(static_cast<double>(c.base_leaked_bytes), static_cast<double>(c.next_leaked_bytes))});
  totals.Write(out, "  ");

  out << "\nSites that changed, per steady frame (" << Plural(c.unchanged_sites, "site") << " unchanged):\n";
  if (c.sites.empty()) {
    out << "  none\n";
  } else {
    TextTable sites({{"change", true}, {"class", true}, {"allocs base"}, {"new"}, {"delta"}, {"bytes base"},
                     {"new"}, {"delta"}, {"location", true}, {"site", true}});
    for (const SiteComparison& s : c.sites) {
      const double sba = PerFrame(s.base.allocations, bf), sna = PerFrame(s.next.allocations, nf);
      const double sbb = PerFrame(s.base.bytes, bf), snb = PerFrame(s.next.bytes, nf);
      sites.AddRow({ChangeName(s.change), ModuleClassName(s.module_class), Rate(sba), Rate(sna), SignedRate(sna - sba),
                    Rate(sbb), Rate(snb), SignedRate(snb - sbb), s.location.empty() ? "-" : s.location, s.name});
    }
    sites.Write(out, "  ");
  }

  out << "\nLive-heap growth by phase:\n";
  TextTable phases({{"base", true}, {"growth"}, {"new", true}, {"growth"}, {"change"}});
  for (const PhaseComparison& p : c.phases) {
    phases.AddRow({PhaseFrames(p.base), p.base ? FormatSignedBytes(LiveGrowth(*p.base)) : "-", PhaseFrames(p.next),
                   p.next ? FormatSignedBytes(LiveGrowth(*p.next)) : "-",
                   p.base && p.next ? FormatSignedBytes(LiveGrowth(*p.next) - LiveGrowth(*p.base)) : "-"});
  }
  phases.Write(out, "  ");

  out << "\nLeaks added:\n";
  if (c.leaks_added.empty()) {
    out << "  none\n";
  } else {
    TextTable leaks({{"class", true}, {"blocks base"}, {"new"}, {"bytes base"}, {"new"}, {"site", true}});
    for (const LeakComparison& l : c.leaks_added)
      leaks.AddRow({ModuleClassName(l.module_class), FormatCount(l.base_blocks), FormatCount(l.next_blocks),
                    FormatCount(l.base_bytes), FormatCount(l.next_bytes), l.name});
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
  for (const PhaseComparison& p : c.phases) phases.push_back({{"base", PhaseJson(p.base)}, {"new", PhaseJson(p.next)}});
  json leaks = json::array();
  for (const LeakComparison& l : c.leaks_added) {
    leaks.push_back({{"name", l.name},
                     {"module_class", ModuleClassName(l.module_class)},
                     {"base", {{"blocks", l.base_blocks}, {"bytes", l.base_bytes}}},
                     {"new", {{"blocks", l.next_blocks}, {"bytes", l.next_bytes}}}});
  }
  auto side = [](const std::string& path, uint64_t frames, const SideFigures& total, uint64_t leaked) {
    json j = SideJson(total, frames);
    j["capture"] = path;
    j["steady_frames"] = frames;
    j["leaked_bytes"] = leaked;
    return j;
  };
  Emit({{"base", side(base_path, c.base_steady_frames, c.base_total, c.base_leaked_bytes)},
        {"new", side(next_path, c.next_steady_frames, c.next_total, c.next_leaked_bytes)},
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
    WriteComparisonText(c, request.base_path, request.next_path, out);
    if (request.fail_on_regression) {
      out << "\nRegressions past " << *request.fail_on_regression << "%:" << (regressions.empty() ? " none\n" : "\n");
      for (const std::string& r : regressions) out << "  " << r << "\n";
    }
  }
  // A damaged capture's figures stop at the damage: no verdict to trust.
  if (FinishWithDamage(base, err) != 0 || FinishWithDamage(next, err) != 0) return 2;
  return regressions.empty() ? 0 : 1;
}

}  // namespace memframe::analysis
