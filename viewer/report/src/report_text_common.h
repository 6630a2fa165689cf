// Text pieces the human-readable reports share. Internal.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report_input.h"
#include "text_table.h"

namespace memframe::analysis {

// Long template names would push every other column off screen; the full
// name is printed with the stack below the table.
std::string Shorten(const std::string& s);
std::string FunctionOrPlaceholder(const SiteView& v);
// The site's name for a table cell: shortened without cutting the module or
// the location from it.
std::string NameCell(const SiteView& v);
// NameCell and the callers that tell look-alike rows apart
// (NameCallersOfLookAlikes): "function <- caller".
std::string SiteLabel(const SiteView& v);
// The class and module cells of a site row ("" without a stack).
std::string ClassCell(const SiteView& v);
std::string ModuleCell(const SiteView& v);
// " (module classes shown: game, engine; threads: main)" under --only /
// --hide / --thread, else "".
std::string ClassesShown(const ReportInput& input);
std::string RangeText(FrameRange r);
// What a report whose rules assume steady play judged: "the steady frames
// 1..11, 27..39 (24 frames; start-up and loads left out, --all-frames
// judges every frame)", or "frames 0..39 (40 frames)".
std::string JudgedFramesText(const JudgedFrames& judged);
// A scope's heading: "steady 2: frames 122..271 (150 frames), 2,008
// allocations / 127 KiB a frame", or JudgedFramesText for a range.
std::string ScopeTitle(const ReportScope& scope, const ReportInput& input);
// What the per-phase answers left out and how to ask otherwise; "" when the
// scopes are not per phase.
std::string ScopesNote(const ReportInput& input, const std::vector<ReportScope>& scopes);
void WriteStack(const SiteView& v, std::ostream& out);
// "+1.20 KiB" / "-812 B" / "0 B".
std::string FormatSignedBytes(int64_t bytes);
std::string FormatSignedCount(int64_t count);

}  // namespace memframe::analysis
