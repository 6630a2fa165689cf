#include "check_command.h"

#include <iostream>

#include "cli_common.h"
#include "memframe/analysis/budget.h"

namespace memframe::injector {

void PrintCheckUsage(std::ostream& out) {
  out << "usage: memframe check CAPTURE --budget FILE [--junit FILE]\n"
         "\n"
         "Checks a capture against memory budgets (JSON) and prints what passed:\n"
         "allocations and bytes per steady frame (whole game, per module class, per\n"
         "site pattern), allocator time per frame (p99), live bytes after each load,\n"
         "leaks and mismatched frees (none allowed by default).\n"
         "Exit status: 0 every budget met, 1 a budget broken, 2 a bad budget or capture.\n"
         "\n"
         "options:\n"
         "  --budget FILE   the budgets (viewer/report/REPORTS.md, \"memframe check\")\n"
         "  --junit FILE    also write the checks as JUnit XML for CI\n"
         "  -h, --help      show this help\n";
}

int CheckCommand(const std::vector<std::string>& args) {
  analysis::CheckRequest request;
  std::vector<std::string> positional;
  std::string error;
  for (size_t i = 0; i < args.size() && error.empty(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      PrintCheckUsage(std::cout);
      return 0;
    }
    if (arg == "--budget" || arg == "--junit") {
      if (i + 1 == args.size()) error = arg + " needs a file";
      else (arg == "--budget" ? request.budget_path : request.junit_path) = args[++i];
    } else if (arg.size() > 1 && arg[0] == '-') {
      error = "unknown option '" + arg + "'";
    } else {
      positional.push_back(arg);
    }
  }
  if (error.empty() && positional.size() != 1)
    error = positional.empty() ? "no capture file given" : "one capture file only, not '" + positional[1] + "'";
  if (error.empty() && request.budget_path.empty()) error = "no budget given (--budget FILE)";
  if (!error.empty()) {
    std::cerr << "memframe check: " << error << "\n(see memframe check --help)\n";
    return kExitMemframeError;
  }
  request.capture_path = positional[0];
  return analysis::RunCheck(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
