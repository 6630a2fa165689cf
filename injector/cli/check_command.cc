#include "check_command.h"

#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "memframe/report/check.h"

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
  const std::vector<CommandOption> options = {Text("--budget", "FILE", &request.budget_path),
                                              Text("--junit", "FILE", &request.junit_path)};
  if (std::optional<int> status = ReadCommandArgs("check", options, args, &positional)) return *status;
  std::string error;
  if (positional.size() != 1)
    error = positional.empty() ? "no capture file given" : "one capture file only, not '" + positional[1] + "'";
  else if (request.budget_path.empty())
    error = "no budget given (--budget FILE)";
  if (!error.empty()) return UsageError("check", error);
  request.capture_path = positional[0];
  return analysis::RunCheck(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
