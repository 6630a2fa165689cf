// `memframe report CAPTURE [REPORT [ARGS...]] [--json]`: a front-end to
// memframe::analysis::RunReport.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "memframe/report/report.h"

namespace memframe::injector {

enum class ReportParse { kReport, kHelp, kError };

// "--json" is taken wherever it appears; the first two other arguments are
// the capture and the report, the rest belong to the report.
ReportParse ParseReportArguments(const std::vector<std::string>& args, analysis::ReportRequest* request,
                                 std::string* error);
void PrintReportUsage(std::ostream& out);

// Parses `args` (what follows "report") and runs the report; returns the
// exit status.
int ReportCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
