// `memframe export`: a capture's allocations in formats other tools read.
//
//   folded  FlameGraph folded stacks: one "outermost;...;innermost BYTES"
//           line per distinct symbolized stack, BYTES = bytes allocated.
//   pprof   a gzipped perftools.profiles.Profile (proto/profile.proto) with
//           sample types alloc_objects/count, alloc_space/bytes,
//           inuse_objects/count, inuse_space/bytes; "in use" = still live
//           when the capture ends.
//   chrome-json  Trace Event Format JSON (chrome_trace_export.cc): frames,
//           phases, per-frame counters (whole game and per module class)
//           and markers on the process's threads.
//   perfetto  a Perfetto trace (perfetto_export.cc, proto/perfetto): the
//           same tracks as chrome-json as track events, and a heap profile
//           per marker and at the end.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct ExportRequest {
  std::string capture_path;
  std::string format;  // an ExportFormats() name
  std::string output;  // file to write; never the capture, nor another capture unless `force`
  bool force = false;
};

// Loads, exports, writes the file. Exit codes as RunReport's: 0, 1 (damaged
// capture, what came before the damage exported), 2 (bad request,
// unreadable capture, file not written), each problem one line on `err`.
int RunExport(const ExportRequest& request, std::ostream& out, std::ostream& err);

// The one list of export formats: `memframe export`'s usage, its --format
// check, RunExport's dispatch and REPORTS.md's list (tested) all read it.
using ExportWriter = std::string (*)(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer);
struct ExportFormatDef {
  std::string name;  // what --format takes
  std::string help;  // for usage; lines after the first are indented under it
  ExportWriter write = nullptr;
};
const std::vector<ExportFormatDef>& ExportFormats();
const ExportFormatDef* FindExportFormat(const std::string& name);
// The names joined: ExportFormatNames(", ", " or ") = "pprof, folded, chrome-json or perfetto".
std::string ExportFormatNames(const std::string& separator, const std::string& last_separator);

// The formats themselves, for the viewer and the tests.
std::string FoldedStacks(const Stream& stream, const HeapAnalysis& heap, Symbolizer& symbolizer);
// The serialized Profile, not compressed.
std::string PprofProfile(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer);
std::string ChromeTraceJson(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer);
// A serialized perfetto.protos.Trace.
std::string PerfettoTrace(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer);
// gzip (RFC 1952) of `data`.
std::string Gzip(const std::string& data);

}  // namespace memframe::analysis
