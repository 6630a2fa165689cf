// `memframe`: the command-line front door. Dispatches to one subcommand;
// each lives in its own file.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "attach_command.h"
#include "cli_common.h"
#include "memframe/output_file.h"
#include "run_command.h"
#ifdef MEMFRAME_WITH_ANALYSIS
#include "check_command.h"
#include "compare_command.h"
#include "export_command.h"
#include "memframe/analysis/capture_loader.h"
#include "mark_command.h"
#include "report_command.h"
#endif

namespace {

void PrintUsage(std::ostream& out) {
  out << "usage: memframe COMMAND [ARGS...]\n"
         "\n"
         "Per-frame memory profiler for games.\n"
         "\n"
         "commands:\n"
         "  run [options] [--] PROGRAM [ARGS...]   record PROGRAM's memory into a capture\n"
         "  attach [options] PID                    record a running process from now on\n"
         "  detach PID                              end an attach; the process runs on\n"
#ifdef MEMFRAME_WITH_ANALYSIS
         "  report CAPTURE [REPORT [ARGS]] [--json] print a report about a capture\n"
         "  export CAPTURE --format F -o FILE       write a capture for other tools (pprof, folded, perfetto, chrome-json)\n"
         "  check CAPTURE --budget FILE             check a capture against memory budgets (CI)\n"
         "  compare BASE NEW                        two captures side by side: sites, phases, leaks\n"
         "  mark SOCKET [NAME]                      place a named marker in a run being recorded\n"
#endif
         "  help [COMMAND]                          show help\n"
         "  --version                               show the version\n"
         "\n"
         "example:\n"
         "  memframe run -- ./game --level 3\n";
}

int Help(const std::vector<std::string>& args) {
  if (args.empty()) {
    PrintUsage(std::cout);
    return 0;
  }
  if (args[0] == "run") {
    memframe::injector::PrintRunUsage(std::cout);
    return 0;
  }
  if (args[0] == "attach") {
    memframe::injector::PrintAttachUsage(std::cout);
    return 0;
  }
  if (args[0] == "detach") {
    memframe::injector::PrintDetachUsage(std::cout);
    return 0;
  }
#ifdef MEMFRAME_WITH_ANALYSIS
  if (args[0] == "report") {
    memframe::injector::PrintReportUsage(std::cout);
    return 0;
  }
  if (args[0] == "export") {
    memframe::injector::PrintExportUsage(std::cout);
    return 0;
  }
  if (args[0] == "check") {
    memframe::injector::PrintCheckUsage(std::cout);
    return 0;
  }
  if (args[0] == "compare") {
    memframe::injector::PrintCompareUsage(std::cout);
    return 0;
  }
  if (args[0] == "mark") {
    memframe::injector::PrintMarkUsage(std::cout);
    return 0;
  }
#endif
  std::cerr << "memframe: no help for unknown command '" << args[0] << "'\n";
  PrintUsage(std::cerr);
  return memframe::injector::kExitMemframeError;
}

int Dispatch(const std::string& command, const std::vector<std::string>& args) {
  if (command == "run") return memframe::injector::RunCommand(args);
  if (command == "attach") return memframe::injector::AttachCommand(args);
  if (command == "detach") return memframe::injector::DetachCommand(args);
#ifdef MEMFRAME_WITH_ANALYSIS
  if (command == "report") return memframe::injector::ReportCommand(args);
  if (command == "export") return memframe::injector::ExportCommand(args);
  if (command == "check") return memframe::injector::CheckCommand(args);
  if (command == "compare") return memframe::injector::CompareCommand(args);
  if (command == "mark") return memframe::injector::MarkCommand(args);
#endif
  if (command == "help" || command == "-h" || command == "--help") return Help(args);
  if (command == "--version" || command == "version") {
    std::cout << "memframe " << memframe::injector::kMemframeVersion << '\n';
    return 0;
  }
  std::cerr << "memframe: unknown command '" << command << "'\n\n";
  PrintUsage(std::cerr);
  return memframe::injector::kExitMemframeError;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(std::cerr);
    return memframe::injector::kExitMemframeError;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  // What goes to stdout is the result: a full disk behind it is a failure,
  // not a silent loss.
  memframe::CheckedStdout checked_stdout;
  int status = memframe::injector::kExitMemframeError;
  try {
    status = Dispatch(command, args);
  } catch (const std::bad_alloc&) {
#ifdef MEMFRAME_WITH_ANALYSIS
    if ((command == "report" || command == "export" || command == "check" || command == "compare") && !args.empty())
      std::cerr << "memframe: error: " << memframe::analysis::OutOfMemoryError(args[0]) << '\n';
    else
#endif
      std::cerr << "memframe: error: out of memory\n";
    return memframe::injector::kExitMemframeError;
  }
  std::string problem = checked_stdout.Finish();
  if (!problem.empty()) {
    std::cerr << "memframe: error: writing the " << (command == "report" ? "report" : "output") << ": " << problem
              << '\n';
    return memframe::injector::kExitMemframeError;
  }
  return status;
}
