// `memframe export CAPTURE --format pprof|folded -o FILE`: a front-end to
// memframe::analysis::RunExport.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "memframe/report/export.h"

namespace memframe::injector {

enum class ExportParse { kExport, kHelp, kError };

ExportParse ParseExportArguments(const std::vector<std::string>& args, analysis::ExportRequest* request,
                                 std::string* error);
void PrintExportUsage(std::ostream& out);

// Parses `args` (what follows "export") and writes the file; returns the
// exit status.
int ExportCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
