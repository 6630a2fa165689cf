// `memframe compare BASE NEW [--json] [--fail-on-regression PCT]`: a
// front-end to memframe::analysis::RunCompare.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace memframe::injector {

void PrintCompareUsage(std::ostream& out);
int CompareCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
