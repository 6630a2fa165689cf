// `memframe report CAPTURE [REPORT [ARGS...]] [--json]`: a front-end to
// memframe::analysis::RunReport.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "memframe/report/report.h"

namespace memframe::injector {

enum class ReportParse { kReport, kHelp, kReportHelp, kError };

// "--json", "--progress" and "--help" are taken wherever they appear; the
// first two other arguments are the capture and the report, the rest belong
// to the report. kReportHelp: --help with a report named (request->report).
ReportParse ParseReportArguments(const std::vector<std::string>& args, analysis::ReportRequest* request,
                                 std::string* error);
void PrintReportUsage(std::ostream& out);

// Parses `args` (what follows "report") and runs the report; returns the
// exit status.
int ReportCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
