// JSON of what a view shows (--dump-view-data), built from the same rows the
// view draws so that a test of the JSON is a test of the view. Rows that a
// report also lists (sites, threads, size bins, mismatches, stack
// references) are written by the report library's row_json.h, so a row has
// one shape in `memframe report --json` and here; their stacks go into a
// JsonStackTable written once at the end of the view's JSON.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/size_histogram.h"
#include "memframe/report/row_json.h"
#include "selection.h"
#include "session.h"

namespace memframe::viewer {

// RangeJson and JudgedFramesJson are row_json.h's (found by the argument's namespace).
// The site of `stats` as the views name it (Session::Label), with its whole
// stack and the threads that allocated there: those of the hidden table's
// group when `grouped`, else those of `members` (every stack of a group)
// when given, else the site's own.
analysis::SiteView SiteViewOf(Session& session, const analysis::SiteStats& stats, bool grouped = false,
                              const std::vector<uint32_t>& members = {});
// A site-statistics row, as the reports' (row_json.h SiteJson).
nlohmann::json SiteStatsJson(Session& session, const analysis::SiteStats& site, analysis::JsonStackTable& stacks,
                             bool grouped = false);
// A stack reference, as the reports' (row_json.h StackRefJson); null for stack 0.
nlohmann::json StackRefJson(Session& session, uint32_t stack_id, analysis::JsonStackTable& stacks);
// Adds "stacks" and "stack_frames" to a view's JSON.
void AddStacks(nlohmann::json& data, const analysis::JsonStackTable& stacks);
// The row filters in force: {search, size_bin (null or {bin, min, max}), group_by_function,
// classes ("game, driver": the classes kept)}.
nlohmann::json FilterJson(const Session& session, const Selection& selection);
// Bins that hold allocations, as the histogram report's (row_json.h SizeBinJson).
nlohmann::json HistogramJson(const analysis::SizeHistogram& histogram);

// What the window's header says of the whole capture: frames rendered, how
// the program ended, what the blocks live at the end are called, the notes,
// and the class toggles' figures.
nlohmann::json HeaderJson(Session& session);

}  // namespace memframe::viewer
