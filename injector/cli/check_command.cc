#include "check_command.h"

#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "memframe/report/check.h"

namespace memframe::injector {

void PrintCheckUsage(std::ostream& out) {
  out << "usage: memframe check CAPTURE --budget FILE [--junit FILE] [--phase N|NAME]\n"
         "\n"
         "Checks a capture against memory budgets (JSON) and prints what passed, each\n"
         "steady budget once per steady phase (\"steady 2: bytes a frame\"): allocations\n"
         "and bytes of its mean frame (spikes included) and of its worst frame (whole\n"
         "game, per module class, per site pattern), allocator time per frame (p99),\n"
         "live bytes after each load, the number of loads and unloads, leaks and\n"
         "mismatched frees (none allowed by default).\n"
         "Exit status: 0 every budget met, 1 a budget broken, 2 a bad budget or capture,\n"
         "no such phase or no budget for it.\n"
         "\n"
         "options:\n"
         "  --budget FILE     the budgets (viewer/report/REPORTS.md, \"memframe check\")\n"
         "  --junit FILE      also write the checks as JUnit XML for CI\n"
         "  --phase N|NAME    check one phase alone (\"steady 2\", \"load 1\", or its position\n"
         "                    in `memframe report CAPTURE phases`); the budgets of the whole\n"
         "                    run (loads, unloads, leaks, mismatches) are then not checked\n"
         "  -h, --help        show this help\n";
}

int CheckCommand(const std::vector<std::string>& args) {
  analysis::CheckRequest request;
  std::vector<std::string> positional;
  const std::vector<CommandOption> options = {Text("--budget", "FILE", &request.budget_path),
                                              Text("--junit", "FILE", &request.junit_path),
                                              Text("--phase", "N|NAME", &request.phase)};
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
