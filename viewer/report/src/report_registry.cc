// The reports and their options (report_registry.h). To add a report: an
// entry in Reports() with its renderers (declared in report_input.h) and a
// section headed by its ReportSynopsis in REPORTS.md; to add an option: an
// entry in Options() and its name in the reports that take it.
#include "memframe/report/report_registry.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "report_input.h"

namespace memframe::analysis {

namespace {

bool ParseFrameNumber(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = value;
  return true;
}

// --from, --to, --frame: a frame number; whether the capture has it is the
// report's to check.
bool ApplyFrame(const std::string& option, const std::string& value, std::optional<uint64_t>* out,
                std::string* error) {
  uint64_t frame = 0;
  if (!ParseFrameNumber(value, &frame)) {
    *error = option + " wants a frame number, not '" + value + "'";
    return false;
  }
  *out = frame;
  return true;
}

bool ApplyMinFraction(const std::string& value, ReportOptions* options, std::string* error) {
  errno = 0;
  char* end = nullptr;
  double fraction = value.empty() ? 0.0 : strtod(value.c_str(), &end);
  if (value.empty() || errno || *end || !(fraction > 0.0 && fraction <= 1.0)) {
    *error = "--min-fraction wants a number in (0, 1], not '" + value + "'";
    return false;
  }
  options->min_fraction = fraction;
  return true;
}

const std::vector<ReportOptionDef>& Options() {
  static const std::vector<ReportOptionDef> options = {
      {"--from", "F", "first frame of the range",
       [](const std::string& v, ReportOptions* o, std::string* e) { return ApplyFrame("--from", v, &o->from, e); }},
      {"--to", "T", "last frame of the range",
       [](const std::string& v, ReportOptions* o, std::string* e) { return ApplyFrame("--to", v, &o->to, e); }},
      {"--frame", "N", "one frame (default: the last)",
       [](const std::string& v, ReportOptions* o, std::string* e) { return ApplyFrame("--frame", v, &o->frame, e); }},
      {"--min-fraction", "X", "share of the judged frames a site must allocate in, in (0, 1] (default 0.5)",
       ApplyMinFraction},
      {"--phase", "N|NAME", "answer for one phase: its position in `report phases` or its name ('steady 2', 'load 1')",
       [](const std::string& v, ReportOptions* o, std::string* e) {
         if (v.empty()) *e = "--phase wants a phase's number or name (memframe report CAPTURE phases lists them)";
         o->phase = v;
         return !v.empty();
       }},
      {"--all-frames", "", "judge every frame, not steady play alone",
       [](const std::string&, ReportOptions* o, std::string*) { return o->all_frames = true; }},
      {"--png", "FILE", "also write the address map as a PNG image",
       [](const std::string& v, ReportOptions* o, std::string* e) {
         if (v.empty()) *e = "--png wants a file name";
         o->png = v;
         return !v.empty();
       }},
      {"--color", "age|site", "colour the map's blocks by the frame that made them, or by call site (default age)",
       [](const std::string& v, ReportOptions* o, std::string* e) {
         if (v != "age" && v != "site") {
           *e = "--color wants 'age' or 'site', not '" + v + "'";
           return false;
         }
         o->coloring = v == "age" ? MapColoring::kAge : MapColoring::kSite;
         return true;
       }},
      {"--only", "CLASSES", "keep the sites of these module classes (comma-separated: game, engine, driver, system)",
       [](const std::string& v, ReportOptions* o, std::string* e) { return ApplyClassList(v, true, &o->classes, e); }},
      {"--hide", "CLASSES", "leave out the sites of these module classes",
       [](const std::string& v, ReportOptions* o, std::string* e) { return ApplyClassList(v, false, &o->classes, e); }},
      {"--module-class", "PATTERN=CLASS", "class the modules PATTERN matches as CLASS (repeatable, first match wins)",
       [](const std::string& v, ReportOptions* o, std::string* e) {
         ModuleClassRule rule;
         if (!ParseModuleClassRule(v, &rule, e)) return false;
         o->class_rules.push_back(std::move(rule));
         return true;
       }},
      {"--thread", "NAME|TID", "keep only this thread's events (repeatable)",
       [](const std::string& v, ReportOptions* o, std::string* e) {
         if (v.empty()) *e = "--thread needs a thread name or TID";
         o->threads.push_back(v);
         return !v.empty();
       }},
  };
  return options;
}

void WriteSummaryTop10(const ReportInput& input, std::ostream& out) { WriteSummaryText(input, 10, out); }

const std::vector<ReportDef>& Reports() {
  static const std::vector<ReportDef> reports = {
      {"summary", "the capture in a few lines: frames, allocations, peak, leaks, who allocated, top hidden sites",
       {"--phase", "--all-frames"}, true, true, "", "", false, WriteSummaryTop10, WriteSummaryJson},
      {"allocators", "the program's own allocators (annotate.h): per frame, high-water, releases, blocks held past one",
       {}, false, true, "", "", false, WriteAllocatorsText, WriteAllocatorsJson},
      {"diff", "the live heap at A against B, by allocating stack (default: across the largest load)",
       {"--phase"}, true, true, "A B", "each a frame number, a marker name, 'start' or 'end'", true, WriteDiffText,
       WriteDiffJson},
      {"fragmentation", "how the live heap and the anonymous mappings lie in the address space",
       {"--frame", "--phase", "--png", "--color"}, false, false, "", "", false, WriteFragmentationText,
       WriteFragmentationJson},
      {"frames", "one row per frame: allocations, frees, bytes, live and mapped bytes, allocator time",
       {"--from", "--to", "--phase"}, true, true, "", "", false, WriteFramesText, WriteFramesJson},
      {"hidden", "the call sites that allocate in most frames: the per-frame churn no single frame shows",
       {"--from", "--to", "--phase", "--min-fraction", "--all-frames"}, true, true, "", "", false, WriteHiddenText,
       WriteHiddenJson},
      {"gpu", "GPU objects beside the heap: live bytes by kind per frame, largest objects, sites, alive at the end",
       {}, false, true, "", "", false, WriteGpuText, WriteGpuJson},
      {"histogram", "allocation sizes in power-of-two bins, with the call sites that fill each bin",
       {"--from", "--to", "--frame", "--phase"}, true, true, "", "", false, WriteHistogramText, WriteHistogramJson},
      {"leaks", "blocks still live at the end, by call site, largest first",
       {}, true, true, "", "", false, WriteLeaksText, WriteLeaksJson},
      {"lifetimes", "each call site classed by how long its blocks live, with the allocator that would serve it",
       {"--from", "--to", "--phase", "--all-frames"}, true, true, "", "", false, WriteLifetimesText, WriteLifetimesJson},
      {"locality", "how scattered each call site's live blocks are at the end of a frame: pages, cache lines, span",
       {"--frame", "--phase"}, true, true, "", "", false, WriteLocalityText, WriteLocalityJson},
      {"mismatches", "frees that do not match their allocation (family, size, unknown pointer, double free)",
       {}, true, true, "", "", false, WriteMismatchesText, WriteMismatchesJson},
      {"phases", "the run cut into start-up, loads, steady play and teardown",
       {}, false, true, "", "", false, WritePhasesText, WritePhasesJson},
      {"sites", "every call site with an allocation in the range, by bytes",
       {"--from", "--to", "--phase", "--all-frames"}, true, true, "", "", false, WriteSitesText, WriteSitesJson},
      {"slow", "the slowest single allocator calls, each with its frame, size and site, beside its frame's total",
       {"--from", "--to", "--phase", "--all-frames"}, true, true, "", "", false, WriteSlowText, WriteSlowJson},
      {"threads", "who allocated, by thread", {}, false, true, "", "", false, WriteThreadsText, WriteThreadsJson},
  };
  return reports;
}

const char* const kSiteOptions[] = {"--only", "--hide", "--module-class"};

}  // namespace

const std::vector<ReportDef>& ReportRegistry() { return Reports(); }

const std::vector<ReportOptionDef>& ReportOptionRegistry() { return Options(); }

const ReportDef* FindReport(const std::string& name) {
  const std::string wanted = name.empty() ? "summary" : name;
  for (const ReportDef& report : Reports())
    if (report.name == wanted) return &report;
  return nullptr;
}

const ReportOptionDef* FindReportOption(const std::string& name) {
  for (const ReportOptionDef& option : Options())
    if (option.name == name) return &option;
  return nullptr;
}

std::vector<const ReportOptionDef*> OptionsOf(const ReportDef& report) {
  std::vector<const ReportOptionDef*> options;
  for (const std::string& name : report.options) options.push_back(FindReportOption(name));
  if (report.site_options)
    for (const char* name : kSiteOptions) options.push_back(FindReportOption(name));
  if (report.thread_option) options.push_back(FindReportOption("--thread"));
  return options;
}

std::string ReportSynopsis(const ReportDef& report) {
  std::string synopsis = report.name;
  for (const std::string& name : report.options) {
    const ReportOptionDef* option = FindReportOption(name);
    synopsis += " [" + option->name + (option->value.empty() ? "" : " " + option->value) + "]";
  }
  if (!report.operands.empty())
    synopsis += report.operands_optional ? " [" + report.operands + "]" : " " + report.operands;
  return synopsis;
}

std::string ReportNames() {
  std::vector<std::string> sorted;
  for (const ReportDef& report : Reports())
    if (report.name != "summary") sorted.push_back(report.name);
  std::sort(sorted.begin(), sorted.end());
  std::string names;
  for (const std::string& name : sorted) names += (names.empty() ? "" : ", ") + name;
  return names;
}

void PrintReportHelp(const ReportDef& report, std::ostream& out) {
  const bool summary = report.name == "summary";
  out << "usage: memframe report CAPTURE " << (summary ? "[summary]" : report.name);
  if (!OptionsOf(report).empty()) out << " [OPTIONS]";
  if (!report.operands.empty())
    out << (report.operands_optional ? " [" + report.operands + "]" : " " + report.operands);
  out << " [--json]\n\n" << static_cast<char>(std::toupper(report.help[0])) << report.help.substr(1) << ".\n";
  if (!report.operands.empty()) out << report.operands << ": " << report.operands_help << ".\n";
  out << "\noptions:\n";
  auto line = [&](const std::string& left, const std::string& help) {
    out << "  " << left << std::string(left.size() < 30 ? 30 - left.size() : 1, ' ') << help << '\n';
  };
  for (const ReportOptionDef* option : OptionsOf(report))
    line(option->name + (option->value.empty() ? "" : " " + option->value), option->help);
  line("--json", "machine-readable output");
  line("--progress", "show loading progress on stderr even when it is not a terminal");
  line("-h, --help", "show this help");
  out << "\nREPORTS.md (\"" << ReportSynopsis(report) << "\") says what it prints.\n";
}

}  // namespace memframe::analysis
