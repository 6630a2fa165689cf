#include "report_command.h"

#include <iostream>

#include "cli_common.h"
#include "memframe/analysis/load_progress.h"

namespace memframe::injector {

void PrintReportUsage(std::ostream& out) {
  out << "usage: memframe report CAPTURE [REPORT [ARGS...]] [--json]\n"
         "\n"
         "Prints one report about a capture written by `memframe run`.\n"
         "REPORT is one of frames, hidden, leaks, sites, histogram, diff, fragmentation,\n"
         "lifetimes, mismatches, phases, threads (default: a summary; see REPORTS.md for their arguments).\n"
         "Every report that lists call sites also takes --only CLASSES, --hide CLASSES and\n"
         "--module-class PATTERN=CLASS (who allocated; classes: game, engine, driver, system).\n"
         "\n"
         "options:\n"
         "  --json       machine-readable output\n"
         "  --progress   show loading progress on stderr even when it is not a terminal\n"
         "  -h, --help   show this help\n";
}

ReportParse ParseReportArguments(const std::vector<std::string>& args, analysis::ReportRequest* request,
                                 std::string* error) {
  std::vector<std::string> positional;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      request->json = true;
    } else if (arg == "--progress") {
      request->progress = true;
    } else if (positional.empty() && (arg == "-h" || arg == "--help")) {
      return ReportParse::kHelp;
    } else {
      positional.push_back(arg);
    }
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
    case ReportParse::kError:
      std::cerr << "memframe report: " << error << "\n(see memframe report --help)\n";
      return kExitMemframeError;
    case ReportParse::kReport:
      break;
  }
  return analysis::RunReport(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
