#include "export_command.h"

#include <iostream>

#include "cli_common.h"

namespace memframe::injector {

void PrintExportUsage(std::ostream& out) {
  out << "usage: memframe export CAPTURE --format pprof|folded|chrome-json|perfetto -o FILE [--force]\n"
         "\n"
         "Writes a capture's allocations for other tools:\n"
         "  pprof    gzipped pprof profile (alloc_objects, alloc_space, inuse_objects, inuse_space)\n"
         "  folded   FlameGraph folded stacks, bytes allocated per stack\n"
         "  chrome-json  Trace Event Format JSON (chrome://tracing, ui.perfetto.dev, Tracy's import-chrome):\n"
         "           frames, phases, markers and per-frame counters on the process's threads\n"
         "  perfetto a Perfetto trace (ui.perfetto.dev): the same tracks, and heap profiles at\n"
         "           each marker and at the end\n"
         "\n"
         "options:\n"
         "  --format F         pprof, folded, chrome-json or perfetto\n"
         "  -o, --output FILE  the file to write (never CAPTURE itself)\n"
         "  --force            replace FILE even if it is a memframe capture\n"
         "  -h, --help         show this help\n";
}

ExportParse ParseExportArguments(const std::vector<std::string>& args, analysis::ExportRequest* request,
                                 std::string* error) {
  const std::vector<CommandOption> table = {
      {"--format", "F", "",
       [request](const std::string& value) {
         if (value != "pprof" && value != "folded" && value != "chrome-json" && value != "perfetto")
           return "--format wants pprof, folded, chrome-json or perfetto, not '" + value + "'";
         request->format = value;
         return std::string();
       }},
      Text("-o,--output", "FILE", &request->output),
      Flag("--force", &request->force),
  };
  std::vector<std::string> positional;
  switch (ParseCommandLine(table, args, &positional, error)) {
    case ParsedCommandLine::kHelp: return ExportParse::kHelp;
    case ParsedCommandLine::kError: return ExportParse::kError;
    case ParsedCommandLine::kOk: break;
  }
  if (positional.size() != 1) {
    *error = positional.empty() ? "no capture file given" : "one capture file only, not '" + positional[1] + "'";
    return ExportParse::kError;
  }
  if (request->format.empty()) {
    *error = "no format given (--format pprof, folded, chrome-json or perfetto)";
    return ExportParse::kError;
  }
  request->capture_path = positional[0];
  return ExportParse::kExport;
}

int ExportCommand(const std::vector<std::string>& args) {
  analysis::ExportRequest request;
  std::string error;
  switch (ParseExportArguments(args, &request, &error)) {
    case ExportParse::kHelp:
      PrintExportUsage(std::cout);
      return 0;
    case ExportParse::kError:
      return UsageError("export", error);
    case ExportParse::kExport:
      break;
  }
  return analysis::RunExport(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
