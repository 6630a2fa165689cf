// `memframe compare`: two captures side by side (the comparison itself:
// memframe/analysis/capture_compare.h), as tables or JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "memframe/analysis/capture_compare.h"

namespace memframe::analysis {

// `all`: every site row, else rows whose figures print alike are folded
// into the first of them, with their count.
void WriteComparisonText(const CaptureComparison& c, const std::string& base_path, const std::string& next_path,
                         bool all, std::ostream& out);
void WriteComparisonJson(const CaptureComparison& c, const std::string& base_path, const std::string& next_path,
                         const std::vector<std::string>& regressions, std::ostream& out);

struct CompareRequest {
  std::string base_path, next_path;
  bool json = false;
  bool all = false;  // text: every site row, none folded
  std::optional<double> fail_on_regression;  // percent
};

// 0; 1 when --fail-on-regression found a regression; 2 for an unreadable or
// damaged capture.
int RunCompare(const CompareRequest& request, std::ostream& out, std::ostream& err);

}  // namespace memframe::analysis
