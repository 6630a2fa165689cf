// `memframe check`: a capture against memory budgets (the budgets and the
// checks themselves: memframe/analysis/budget.h), printed as a table and
// written as JUnit XML for CI.
#pragma once

#include <ostream>
#include <string>

#include "memframe/analysis/budget.h"

namespace memframe::analysis {

void WriteBudgetTable(const BudgetReport& report, const std::string& capture, std::ostream& out);
// JUnit XML: one testsuite, one testcase per check, a <failure> per broken one.
std::string BudgetJUnit(const BudgetReport& report, const std::string& capture);

struct CheckRequest {
  std::string capture_path;
  std::string budget_path;
  std::string junit_path;  // "" = none
  std::string phase;       // --phase: one phase alone (FindPhaseByName), "" = the whole run
};

// 0: every budget met; 1: at least one broken; 2: bad budget file,
// unreadable or damaged capture, JUnit file not written, no such phase or
// no budget for it.
int RunCheck(const CheckRequest& request, std::ostream& out, std::ostream& err);

}  // namespace memframe::analysis
