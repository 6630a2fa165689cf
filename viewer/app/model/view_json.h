// JSON of what a view shows (--dump-view-data), built from the same rows the
// view draws so that a test of the JSON is a test of the view.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/size_histogram.h"
#include "selection.h"
#include "session.h"

namespace memframe::viewer {

nlohmann::json RangeJson(analysis::FrameRange range);
// The symbolized stack, innermost first: [{function, file, line, module, inlined}].
nlohmann::json StackJson(Session& session, uint32_t stack_id);
// Who allocated, as the reports' JSON says it: name, module, module_class
// (null without a stack), from_game, added to `row`.
void AddOrigin(nlohmann::json& row, const SiteLabel& label);
// A call site's label, thread cell (of the hidden table's groups when
// `grouped`), figures over a range, and stack.
nlohmann::json SiteStatsJson(Session& session, const analysis::SiteStats& site, bool grouped = false);
// The row filters in force: {search, size_bin (null or {bin, min, max}), group_by_function,
// classes ("game, driver": the classes kept)}.
nlohmann::json FilterJson(const Session& session, const Selection& selection);
// Bins that hold allocations: [{bin, min, max, label, allocations, bytes}].
nlohmann::json HistogramJson(const analysis::SizeHistogram& histogram);

// What the window's header says of the whole capture: frames rendered, how
// the program ended, what the blocks live at the end are called, the notes,
// and the class toggles' figures.
nlohmann::json HeaderJson(Session& session);

}  // namespace memframe::viewer
