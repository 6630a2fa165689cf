#include "report_command.h"

#include <algorithm>
#include <iostream>

#include "cli_common.h"
#include "memframe/analysis/load_progress.h"
#include "memframe/report/report_registry.h"

namespace memframe::injector {

void PrintReportUsage(std::ostream& out) {
  out << "usage: memframe report CAPTURE [REPORT [ARGS...]] [--json]\n"
         "\n"
         "Prints one report about a capture written by `memframe run` (default: the summary).\n"
         "`memframe report CAPTURE REPORT --help` lists a report's options; REPORTS.md says what each prints.\n"
         "\n"
         "reports:\n";
  for (const analysis::ReportDef& report : analysis::ReportRegistry())
    out << "  " << report.name << std::string(report.name.size() < 15 ? 15 - report.name.size() : 1, ' ')
        << report.help << '\n';
  out << "\n"
         "options:\n"
         "  --json         machine-readable output\n"
         "  --progress     show loading progress on stderr even when it is not a terminal\n"
         "  -h, --help     show this help, or with REPORT that report's\n";
}

ReportParse ParseReportArguments(const std::vector<std::string>& args, analysis::ReportRequest* request,
                                 std::string* error) {
  std::vector<std::string> positional;
  bool help = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      request->json = true;
    } else if (arg == "--progress") {
      request->progress = true;
    } else if (arg == "-h" || arg == "--help") {
      help = true;
    } else {
      positional.push_back(arg);
    }
  }
  if (help) {
    // `report CAPTURE REPORT --help`, and `report REPORT --help` without a capture.
    for (size_t i = 0; i < std::min<size_t>(positional.size(), 2); ++i) {
      if (analysis::FindReport(positional[i]) && !positional[i].empty()) {
        request->report = positional[i];
        return ReportParse::kReportHelp;
      }
    }
    return ReportParse::kHelp;
  }
  if (positional.empty()) {
    *error = "no capture file given";
    return ReportParse::kError;
  }
  request->capture_path = positional[0];
  // Options right after CAPTURE are the summary's (`report CAPTURE --hide driver`).
  if (positional.size() > 1 && positional[1].rfind("--", 0) != 0) request->report = positional[1];
  const long first_arg = request->report.empty() ? 1 : 2;
  request->args.assign(positional.begin() + std::min<long>(first_arg, static_cast<long>(positional.size())),
                       positional.end());
  return ReportParse::kReport;
}

int ReportCommand(const std::vector<std::string>& args) {
  analysis::ReportRequest request;
  // A bar only where a person watches; --progress forces it (a log, a pipe).
  request.progress = analysis::StderrIsTerminal();
  std::string error;
  switch (ParseReportArguments(args, &request, &error)) {
    case ReportParse::kHelp:
      PrintReportUsage(std::cout);
      return 0;
    case ReportParse::kReportHelp:
      analysis::PrintReportHelp(*analysis::FindReport(request.report), std::cout);
      return 0;
    case ReportParse::kError:
      return UsageError("report", error);
    case ReportParse::kReport:
      break;
  }
  return analysis::RunReport(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
