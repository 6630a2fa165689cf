// Entry points of the analysis core that the `memframe` CLI calls. The
// viewer uses the model and statistics headers beside this one directly.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"

namespace memframe::analysis {

struct ReportRequest {
  std::string capture_path;
  std::string report;              // "" = summary; "frames", "hidden", "leaks", "sites", ...
  std::vector<std::string> args;   // the report's own arguments
  bool json = false;
  // Draw a progress bar on `err` while the capture loads and is analysed
  // (the CLI sets it when stderr is a terminal, or for --progress).
  bool progress = false;
  // The summary reads the events once without keeping them
  // (analysis/summary_load.h); this loads them whole as every other report
  // does, for tests that check both give the same text.
  bool whole_load = false;
};

// Loads the capture, runs one report, writes it to `out`. Problems (bad file,
// unknown report) go to `err` as one clear message. Returns the process exit
// code: 0 on success; 1 when the capture is damaged but what came before the
// damage was reported; 2 for bad usage or an unreadable capture.
int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err);

// The short summary `memframe run` prints when the program ends: frames,
// allocations, peak live bytes, leaks, and the call sites that allocate in
// most frames, with function names.
int PrintRunSummary(const std::string& capture_path, std::ostream& out, std::ostream& err);
// The same from the summary's model already read (analysis/summary_load.h:
// memframe run keeps it while it records).
int PrintRunSummary(const Capture& capture, const HeapAnalysis& heap, std::ostream& out, std::ostream& err);

// After the output of a capture: 0 for an undamaged one; else writes
// "<program>: warning: <damage> — reporting the N events read before it" and
// returns 1 (the CLI and the viewer's --dump-view-data say it alike). An
// attached capture gets a note that it starts at the attach, with the
// number of frees of older blocks set apart when `heap` is given.
struct HeapAnalysis;
int FinishWithDamage(const Capture& capture, std::ostream& err, const std::string& program = "memframe",
                     const HeapAnalysis* heap = nullptr);

}  // namespace memframe::analysis
