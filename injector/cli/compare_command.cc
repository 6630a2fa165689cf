#include "compare_command.h"

#include <cmath>
#include <iostream>

#include "cli_common.h"
#include "memframe/analysis/capture_compare.h"

namespace memframe::injector {

void PrintCompareUsage(std::ostream& out) {
  out << "usage: memframe compare BASE NEW [--json] [--fail-on-regression PCT]\n"
         "\n"
         "Two captures of the same game side by side: per-site allocations and bytes\n"
         "per steady frame, sites new in NEW and gone from it, live-heap growth per\n"
         "phase, leaks added. Sites are matched by function and file:line, not by\n"
         "address, so two builds compare.\n"
         "\n"
         "options:\n"
         "  --json                    one JSON object instead of tables\n"
         "  --fail-on-regression PCT  exit 1 when steady allocations or bytes per frame or\n"
         "                            leaked bytes grew by more than PCT%, or a game site is\n"
         "                            new or grew by more than PCT%\n"
         "  -h, --help                show this help\n";
}

int CompareCommand(const std::vector<std::string>& args) {
  analysis::CompareRequest request;
  std::vector<std::string> positional;
  std::string error;
  for (size_t i = 0; i < args.size() && error.empty(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      PrintCompareUsage(std::cout);
      return 0;
    }
    if (arg == "--json") {
      request.json = true;
    } else if (arg == "--fail-on-regression") {
      if (i + 1 == args.size()) {
        error = arg + " needs a percentage";
        break;
      }
      const std::string& text = args[++i];
      size_t used = 0;
      double pct = -1;
      try {
        pct = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || !std::isfinite(pct) || pct < 0)
        error = "--fail-on-regression needs a percentage of at least 0, not '" + text + "'";
      else
        request.fail_on_regression = pct;
    } else if (arg.size() > 1 && arg[0] == '-') {
      error = "unknown option '" + arg + "'";
    } else {
      positional.push_back(arg);
    }
  }
  if (error.empty() && positional.size() != 2)
    error = positional.size() < 2 ? "two captures needed: BASE and NEW" : "two captures only, not '" + positional[2] + "'";
  if (!error.empty()) {
    std::cerr << "memframe compare: " << error << "\n(see memframe compare --help)\n";
    return kExitMemframeError;
  }
  request.base_path = positional[0];
  request.next_path = positional[1];
  return analysis::RunCompare(request, std::cout, std::cerr);
}

}  // namespace memframe::injector
