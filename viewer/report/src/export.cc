// RunExport: load, analyse, write one export file (export.h).
#include "memframe/report/export.h"
#include "memframe/report/report.h"
#include "memframe/output_file.h"
#include "report_input.h"
#include "memframe/command_line.h"

namespace memframe::analysis {

const std::vector<ExportFormatDef>& ExportFormats() {
  static const std::vector<ExportFormatDef> formats = {
      {"pprof", "gzipped pprof profile (alloc_objects, alloc_space, inuse_objects, inuse_space)",
       [](const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer) {
         return Gzip(PprofProfile(capture, heap, symbolizer));
       }},
      {"folded", "FlameGraph folded stacks, bytes allocated per stack",
       [](const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer) {
         return FoldedStacks(capture.main, heap, symbolizer);
       }},
      {"chrome-json",
       "Trace Event Format JSON (chrome://tracing, ui.perfetto.dev, Tracy's import-chrome):\n"
       "frames, phases, markers and per-frame counters on the process's threads",
       ChromeTraceJson},
      {"perfetto", "a Perfetto trace (ui.perfetto.dev): the same tracks, and heap profiles at\neach marker and at the end",
       PerfettoTrace},
  };
  return formats;
}

const ExportFormatDef* FindExportFormat(const std::string& name) {
  for (const ExportFormatDef& format : ExportFormats())
    if (format.name == name) return &format;
  return nullptr;
}

std::string ExportFormatNames(const std::string& separator, const std::string& last_separator) {
  const std::vector<ExportFormatDef>& formats = ExportFormats();
  std::string names;
  for (size_t i = 0; i < formats.size(); ++i)
    names += (i == 0 ? "" : i + 1 == formats.size() ? last_separator : separator) + formats[i].name;
  return names;
}

int RunExport(const ExportRequest& request, std::ostream& out, std::ostream& err) {
  const ExportFormatDef* format = FindExportFormat(request.format);
  if (!format) {
    ErrorLine(err) << "unknown export format '" << request.format << "' (formats: "
        << ExportFormatNames(", ", ", ") << ")\n";
    return kExitMemframeError;
  }
  if (request.output.empty()) {
    ErrorLine(err) << "no output file given (-o FILE)\n";
    return kExitMemframeError;
  }
  // Refused before the work: the capture itself, or another capture
  // without --force.
  OutputPolicy policy;
  policy.inputs = {request.capture_path};
  if (!request.force) {
    policy.existing = OutputPolicy::Existing::kReplaceUnlessCapture;
    policy.force_hint = "pass --force to replace it";
  }
  std::string error;
  std::unique_ptr<OutputFile> file = OutputFile::Create(request.output, policy, &error);
  if (!file) {
    ErrorLine(err) << error << '\n';
    return kExitMemframeError;
  }
  Capture capture;
  if (int code = LoadCaptureForReport(request.capture_path, &capture, err); code >= 0) return code;
  HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules, ClassifierFor(capture.main));
  const std::string bytes = format->write(capture, heap, symbolizer);
  if (!file->Write(bytes.data(), bytes.size(), &error) || !file->Commit(&error)) {
    ErrorLine(err) << error << '\n';
    return kExitMemframeError;
  }
  out << "memframe: " << request.format << " export of " << heap.sites.sites().size() << " call stacks written to "
      << request.output << " (" << bytes.size() << " bytes)\n";
  return FinishWithDamage(capture, err);
}

}  // namespace memframe::analysis
