#include "commands.h"

#include <iostream>

#include "attach_command.h"
#include "cli_common.h"
#include "run_command.h"
#ifdef MEMFRAME_WITH_ANALYSIS
#include "check_command.h"
#include "compare_command.h"
#include "export_command.h"
#include "mark_command.h"
#include "report_command.h"
#endif

namespace memframe::injector {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"run", "[options] [--] PROGRAM [ARGS...]", "record PROGRAM's memory into a capture", PrintRunUsage,
       RunCommand},
      {"attach", "[options] PID", "record a running process from now on", PrintAttachUsage, AttachCommand},
      {"detach", "PID", "end an attach; the process runs on", PrintDetachUsage, DetachCommand},
#ifdef MEMFRAME_WITH_ANALYSIS
      {"report", "CAPTURE [REPORT [ARGS]] [--json]", "print a report about a capture", PrintReportUsage,
       ReportCommand},
      {"export", "CAPTURE --format F -o FILE", "write a capture for other tools (" + analysis::ExportFormatNames(", ", ", ") + ")",
       PrintExportUsage, ExportCommand},
      {"check", "CAPTURE --budget FILE", "check a capture against memory budgets (CI)", PrintCheckUsage,
       CheckCommand},
      {"compare", "BASE NEW", "two captures side by side: sites, phases, leaks", PrintCompareUsage, CompareCommand},
      {"mark", "SOCKET [NAME]", "place a named marker in a run being recorded", PrintMarkUsage, MarkCommand},
#endif
  };
  return commands;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& command : Commands())
    if (command.name == name) return &command;
  return nullptr;
}

std::optional<int> ReadCommandArgs(const std::string& command, const std::vector<CommandOption>& options,
                                   const std::vector<std::string>& args, std::vector<std::string>* positional) {
  std::string error;
  switch (ParseCommandLine(options, args, positional, &error)) {
    case ParsedCommandLine::kHelp:
      FindCommand(command)->usage(std::cout);
      return 0;
    case ParsedCommandLine::kError:
      return UsageError(command, error);
    case ParsedCommandLine::kOk:
      break;
  }
  return std::nullopt;
}

}  // namespace memframe::injector
