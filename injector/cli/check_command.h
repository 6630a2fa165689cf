// `memframe check CAPTURE --budget FILE [--junit FILE]`: a front-end to
// memframe::analysis::RunCheck.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace memframe::injector {

void PrintCheckUsage(std::ostream& out);
// Returns the exit status: 0 every budget met, 1 one broken, 2 bad usage,
// budget or capture.
int CheckCommand(const std::vector<std::string>& args);

}  // namespace memframe::injector
