// `memframe`: the command-line front door. Dispatches to one command
// (commands.h); each lives in its own file.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "docs_generator.h"
#include "memframe/output_file.h"
#ifdef MEMFRAME_WITH_ANALYSIS
#include "memframe/analysis/capture_loader.h"
#include "memframe/command_line.h"
#endif

namespace {

using memframe::injector::Command;
using memframe::injector::Commands;
using memframe::injector::FindCommand;
using memframe::kExitMemframeError;

void PrintUsage(std::ostream& out) {
  out << "usage: memframe COMMAND [ARGS...]\n"
         "\n"
         "Per-frame memory profiler for games.\n"
         "\n"
         "commands:\n";
  auto line = [&](const std::string& left, const std::string& summary) {
    out << "  " << left << std::string(left.size() < 40 ? 40 - left.size() : 1, ' ') << summary << '\n';
  };
  for (const Command& command : Commands()) line(command.name + " " + command.synopsis, command.summary);
  line("help [COMMAND]", "show help (also COMMAND --help)");
  line("--version", "show the version");
  out << "\n"
         "example:\n"
         "  memframe run -- ./game --level 3\n";
}

int Help(const std::vector<std::string>& args) {
  if (args.empty()) {
    PrintUsage(std::cout);
    return 0;
  }
  if (const Command* command = FindCommand(args[0])) {
    command->usage(std::cout);
    return 0;
  }
  memframe::ErrorLine(std::cerr) << "no help for unknown command '" << args[0] << "'\n";
  PrintUsage(std::cerr);
  return kExitMemframeError;
}

int Dispatch(const std::string& name, const std::vector<std::string>& args) {
  if (const Command* command = FindCommand(name)) {
    // --version after any command, as before it.
    if (args.size() == 1 && args[0] == "--version") {
      std::cout << "memframe " << memframe::injector::kMemframeVersion << '\n';
      return 0;
    }
    return command->run(args);
  }
  if (name == "help" || name == "-h" || name == "--help") return Help(args);
  if (name == "--version" || name == "version") {
    std::cout << "memframe " << memframe::injector::kMemframeVersion << '\n';
    return 0;
  }
  // Hidden: what the build installs as man pages and completion.
  if (name == "--generate-man" && args.size() <= 1) {
    if (memframe::injector::WriteManPage(args.empty() ? "" : args[0], std::cout)) return 0;
    memframe::ErrorLine(std::cerr) << "no man page for unknown command '" << args[0] << "'\n";
    return kExitMemframeError;
  }
  if (name == "--generate-docs" && args.size() == 1) {
    std::string error;
    if (memframe::injector::WriteDocs(args[0], &error)) return 0;
    memframe::ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  if (name == "--generate-completion" && args.size() == 1 && args[0] == "bash") {
    memframe::injector::WriteBashCompletion(std::cout);
    return 0;
  }
  memframe::ErrorLine(std::cerr) << "unknown command '" << name << "'\n\n";
  PrintUsage(std::cerr);
  return kExitMemframeError;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(std::cerr);
    return kExitMemframeError;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  // What goes to stdout is the result: a full disk behind it is a failure,
  // not a silent loss.
  memframe::CheckedStdout checked_stdout;
  int status = kExitMemframeError;
  try {
    status = Dispatch(command, args);
  } catch (const std::bad_alloc&) {
#ifdef MEMFRAME_WITH_ANALYSIS
    if ((command == "report" || command == "export" || command == "check" || command == "compare") && !args.empty())
      memframe::ErrorLine(std::cerr) << memframe::analysis::OutOfMemoryError(args[0]) << '\n';
    else
#endif
      memframe::ErrorLine(std::cerr) << "out of memory\n";
    return kExitMemframeError;
  }
  std::string problem = checked_stdout.Finish();
  if (!problem.empty()) {
    memframe::ErrorLine(std::cerr) << "writing the " << (command == "report" ? "report" : "output") << ": " << problem
              << '\n';
    return kExitMemframeError;
  }
  return status;
}
