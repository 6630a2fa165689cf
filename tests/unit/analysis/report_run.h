// Runs a `memframe report` in-process (RunReport) on a capture file and
// keeps its exit code and what it printed: the harness of the report tests.
#pragma once

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "memframe/report/report.h"

namespace memframe::testing {

struct ReportResult {
  int code = 0;
  std::string out, err;
  nlohmann::json Json() const { return nlohmann::json::parse(out); }
};

inline ReportResult RunReportCli(const std::string& path, const std::string& report, std::vector<std::string> args,
                                 bool as_json) {
  analysis::ReportRequest request{path, report, std::move(args), as_json};
  std::ostringstream out, err;
  ReportResult r;
  r.code = analysis::RunReport(request, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace memframe::testing
