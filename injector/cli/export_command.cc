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
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") return ExportParse::kHelp;
    if (arg == "--force") {
      request->force = true;
      continue;
    }
    if (arg == "--format" || arg == "-o" || arg == "--output") {
      if (i + 1 == args.size()) {
        *error = arg + " needs a value";
        return ExportParse::kError;
      }
      (arg == "--format" ? request->format : request->output) = args[++i];
    } else if (arg.size() > 1 && arg[0] == '-') {
      *error = "unknown option '" + arg + "'";
      return ExportParse::kError;
    } else {
      positional.push_back(arg);
    }
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
      std::cerr << "memframe export: " << error << "\n(see memframe export --help)\n";
      return kExitMemframeError;
    case ExportParse::kExport:
      break;
  }
  return analysis::RunExport(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
