// The one list of `memframe report`'s reports: each entry has the report's
// name, help, options and renderers. Parsing (ParseReportArgs), dispatch
// (RunReport), `--help` per report, the shell completion and man page, and
// the headings of REPORTS.md (tested) all read it; adding a report is adding
// an entry in report_registry.cc and its section in REPORTS.md.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace memframe::analysis {

struct ReportInput;    // report_input.h (internal to memframe_report)
struct ReportOptions;  // report_input.h

// One option a report may take. Options are defined once (report_registry.cc)
// and listed by name in each report that takes them.
struct ReportOptionDef {
  std::string name;   // "--from"
  std::string value;  // what it takes, as help shows it ("F"); "" for a flag
  std::string help;   // one line
  // Stores the value (or the flag) in *options; false with *error for a bad
  // value. Values that depend on the capture are checked by the report.
  bool (*apply)(const std::string& value, ReportOptions* options, std::string* error);
};

using ReportRenderer = void (*)(const ReportInput& input, std::ostream& out);

struct ReportDef {
  std::string name;                  // "summary" is the report without a name
  std::string help;                  // one line
  std::vector<std::string> options;  // the report's own options, in help order (ReportOptionDef names)
  bool site_options = false;         // takes --only, --hide, --module-class (it lists call sites)
  bool thread_option = true;         // takes --thread
  std::string operands;              // positional arguments ("A B"), "" for none
  std::string operands_help;         // what they are
  bool operands_optional = false;    // all of them or none
  ReportRenderer text = nullptr;
  ReportRenderer json = nullptr;
};

// Every report, the summary first.
const std::vector<ReportDef>& ReportRegistry();
// The report called `name` ("" and "summary" are the summary); nullptr when none is.
const ReportDef* FindReport(const std::string& name);
// Every option any report takes, --thread and the site options included.
const std::vector<ReportOptionDef>& ReportOptionRegistry();
const ReportOptionDef* FindReportOption(const std::string& name);
// Every option `report` takes, in help order: its own, then the site options, then --thread.
std::vector<const ReportOptionDef*> OptionsOf(const ReportDef& report);
// "hidden [--from F] [--to T] [--min-fraction X] [--all-frames]": the
// report's own options and operands, as REPORTS.md heads its section.
std::string ReportSynopsis(const ReportDef& report);
// The names of the reports other than the summary, ", "-separated.
std::string ReportNames();
// `memframe report CAPTURE NAME --help`.
void PrintReportHelp(const ReportDef& report, std::ostream& out);

}  // namespace memframe::analysis
