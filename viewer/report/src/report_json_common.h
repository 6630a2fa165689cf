// JSON pieces every report shares (REPORTS.md "Site object"). Internal.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report_input.h"
#include "memframe/hex.h"

namespace memframe::analysis {

// Keys in the order REPORTS.md lists them.
using json = nlohmann::ordered_json;

// A site row; its stack goes into input.json_stacks, named by "stack_id".
json SiteJson(const SiteView& view, const ReportInput& input);
// The sites --only / --hide keep.
json SitesJson(const ReportInput& input, const std::vector<SiteStats>& sites);
// "driver", or null for a site without a stack.
json ModuleClassJson(const SiteView& view);
// The classes --only / --hide keep, in order.
json ClassesShownJson(const ReportInput& input);
// The short form for rows that are not site statistics (diff, lifetimes,
// mismatches, locality, allocators): stack_id, name, module, module_class,
// function, location, thread, threads; the stack goes into
// input.json_stacks.
json StackRefJson(const SiteView& view, const ReportInput& input);
json RangeJson(FrameRange r);
// {"judged": "steady" | "all", "ranges": [...], "frame_count", "all_frames_option"}.
json JudgedFramesJson(const JudgedFrames& judged);
// {"phase": "steady 2" | null, "kind", "frames", "frame_count", "judged_frames"}
// (+ the steady phase's medians): what a per-phase answer is for.
json ScopeJson(const ReportScope& scope, const ReportInput& input);
void Emit(const json& j, std::ostream& out);
// A report whose rows name stacks: `j` with "stacks" and "stack_frames"
// (input.json_stacks) at its end.
void Emit(json j, const ReportInput& input, std::ostream& out);

}  // namespace memframe::analysis
