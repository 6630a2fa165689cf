#include "export_command.h"

#include <iostream>

#include "cli_common.h"

namespace memframe::injector {

void PrintExportUsage(std::ostream& out) {
  out << "usage: memframe export CAPTURE --format " << analysis::ExportFormatNames("|", "|")
      << " -o FILE [--force]\n"
         "\n"
         "Writes a capture's allocations for other tools:\n";
  for (const analysis::ExportFormatDef& format : analysis::ExportFormats()) {
    std::string help = format.help;
    // The help's own lines go under its first.
    for (size_t at = 0; (at = help.find('\n', at)) != std::string::npos; at += 12) help.insert(at + 1, 11, ' ');
    out << "  " << format.name << std::string(format.name.size() < 9 ? 9 - format.name.size() : 2, ' ') << help
        << '\n';
  }
  out << "\n"
         "options:\n"
         "  --format F         "
      << analysis::ExportFormatNames(", ", " or ")
      << "\n"
         "  -o, --output FILE  the file to write (never CAPTURE itself)\n"
         "  --force            replace FILE even if it is a memframe capture\n"
         "  -h, --help         show this help\n";
}

ExportParse ParseExportArguments(const std::vector<std::string>& args, analysis::ExportRequest* request,
                                 std::string* error) {
  const std::vector<CommandOption> table = {
      {"--format", "F", "",
       [request](const std::string& value) {
         if (!analysis::FindExportFormat(value))
           return "--format wants " + analysis::ExportFormatNames(", ", " or ") + ", not '" + value + "'";
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
    *error = "no format given (--format " + analysis::ExportFormatNames(", ", " or ") + ")";
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
