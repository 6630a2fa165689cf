// JSON pieces every report shares (REPORTS.md "Site object"). Internal.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report_input.h"
#include "memframe/report/row_json.h"
#include "memframe/hex.h"

namespace memframe::analysis {

// The sites --only / --hide keep.
json SitesJson(const ReportInput& input, const std::vector<SiteStats>& sites);
// The classes --only / --hide keep, in order.
json ClassesShownJson(const ReportInput& input);
// {"phase": "steady 2" | null, "kind", "frames", "frame_count", "judged_frames"}
// (+ the steady phase's medians): what a per-phase answer is for.
json ScopeJson(const ReportScope& scope, const ReportInput& input);
void Emit(const json& j, std::ostream& out);
// A report whose rows name stacks: `j` with "stacks" and "stack_frames"
// (input.json_stacks) at its end.
void Emit(json j, const ReportInput& input, std::ostream& out);

}  // namespace memframe::analysis
