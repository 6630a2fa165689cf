#include "compare_command.h"

#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "memframe/report/compare.h"

namespace memframe::injector {

void PrintCompareUsage(std::ostream& out) {
  out << "usage: memframe compare BASE NEW [--json] [--all] [--fail-on-regression PCT]\n"
         "\n"
         "Two captures of the same game side by side: per-site allocations and bytes\n"
         "per steady frame, sites new in NEW and gone from it, live-heap growth per\n"
         "phase (\"load 2\" with \"load 2\"), leaks added. Sites are matched by function\n"
         "and file:line, not by address, so two builds compare. Leaks compare only\n"
         "between two runs that exited: blocks live when memframe detached, or when\n"
         "the game was killed, are no leaks.\n"
         "\n"
         "options:\n"
         "  --json                    one JSON object instead of tables\n"
         "  --all                     list every changed site; by default rows whose\n"
         "                            figures print alike are one row with their count\n"
         "  --fail-on-regression PCT  exit 1 when steady allocations or bytes per frame or\n"
         "                            leaked bytes grew by more than PCT%, or a game site is\n"
         "                            new or grew by more than PCT%\n"
         "  -h, --help                show this help\n";
}

int CompareCommand(const std::vector<std::string>& args) {
  analysis::CompareRequest request;
  const std::vector<CommandOption> table = {
      Flag("--json", &request.json),
      Flag("--all", &request.all),
      {"--fail-on-regression", "PCT", "",
       [&request](const std::string& value) {
         double pct = -1;
         if (!ParseDouble(value, &pct) || pct < 0)
           return "--fail-on-regression wants a percentage of at least 0, not '" + value + "'";
         request.fail_on_regression = pct;
         return std::string();
       }},
  };
  std::vector<std::string> positional;
  if (std::optional<int> status = ReadCommandArgs("compare", table, args, &positional)) return *status;
  if (positional.size() != 2) {
    return UsageError("compare", positional.size() < 2 ? "two captures needed: BASE and NEW"
                                                       : "two captures only, not '" + positional[2] + "'");
  }
  request.base_path = positional[0];
  request.next_path = positional[1];
  return analysis::RunCompare(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
