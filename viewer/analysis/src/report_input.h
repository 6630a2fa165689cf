// What every report renderer gets: the model, the heap analysis, a
// symbolizer and the parsed report arguments. Internal to the library.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct ReportOptions {
  std::optional<uint32_t> from;
  std::optional<uint32_t> to;
  double min_fraction = 0.5;
};

struct ReportInput {
  const Capture& capture;
  const HeapAnalysis& heap;
  Symbolizer& symbolizer;
  ReportOptions options;
};

// A site with its symbolized stack and the frame that names it.
struct SiteView {
  SiteStats stats;
  std::vector<SourceFrame> stack;  // innermost first, inlined frames expanded
  std::string function;            // of the user frame; "" when the site has no stack
  std::string location;            // "basename:line" of the user frame; "" if unknown
};

SiteView MakeSiteView(const SiteStats& stats, const ReportInput& input);

// Frames 0..last frame of the table, narrowed by --from / --to.
FrameRange AllFramesRange(const ReportInput& input);
// The frames that ended with FRAME_END (all frames when none did), narrowed
// by --from / --to: the default range of the hidden-site reports.
FrameRange CompleteFramesRange(const ReportInput& input);

// Top hidden sites of the default range, for the summaries.
std::vector<SiteStats> TopHiddenSites(const ReportInput& input, size_t count);

// Parses the arguments of `report` ("" = summary). False with *error on an
// unknown option or a bad value.
bool ParseReportArgs(const std::string& report, const std::vector<std::string>& args, ReportOptions* options,
                     std::string* error);

// Renderers, one per report and format.
void WriteSummaryText(const ReportInput& input, size_t top_sites, std::ostream& out);
void WriteFramesText(const ReportInput& input, std::ostream& out);
void WriteHiddenText(const ReportInput& input, std::ostream& out);
void WriteLeaksText(const ReportInput& input, std::ostream& out);
void WriteSitesText(const ReportInput& input, std::ostream& out);

void WriteSummaryJson(const ReportInput& input, std::ostream& out);
void WriteFramesJson(const ReportInput& input, std::ostream& out);
void WriteHiddenJson(const ReportInput& input, std::ostream& out);
void WriteLeaksJson(const ReportInput& input, std::ostream& out);
void WriteSitesJson(const ReportInput& input, std::ostream& out);

}  // namespace memframe::analysis
