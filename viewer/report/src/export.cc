// RunExport: load, analyse, write one export file (export.h).
#include "memframe/report/export.h"
#include "memframe/report/report.h"
#include "memframe/output_file.h"
#include "report_input.h"

namespace memframe::analysis {

bool IsExportFormat(const std::string& format) {
  return format == "pprof" || format == "folded" || format == "chrome-json" || format == "perfetto";
}

int RunExport(const ExportRequest& request, std::ostream& out, std::ostream& err) {
  if (!IsExportFormat(request.format)) {
    err << "memframe: error: unknown export format '" << request.format
        << "' (formats: chrome-json, folded, perfetto, pprof)\n";
    return 2;
  }
  if (request.output.empty()) {
    err << "memframe: error: no output file given (-o FILE)\n";
    return 2;
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
    err << "memframe: error: " << error << '\n';
    return 2;
  }
  Capture capture;
  if (int code = LoadCaptureForReport(request.capture_path, &capture, err); code >= 0) return code;
  HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules, ClassifierFor(capture.main));
  std::string bytes;
  if (request.format == "pprof") bytes = Gzip(PprofProfile(capture, heap, symbolizer));
  else if (request.format == "folded") bytes = FoldedStacks(capture.main, heap, symbolizer);
  else if (request.format == "chrome-json") bytes = ChromeTraceJson(capture, heap, symbolizer);
  else bytes = PerfettoTrace(capture, heap, symbolizer);
  if (!file->Write(bytes.data(), bytes.size(), &error) || !file->Commit(&error)) {
    err << "memframe: error: " << error << '\n';
    return 2;
  }
  out << "memframe: " << request.format << " export of " << heap.sites.sites().size() << " call stacks written to "
      << request.output << " (" << bytes.size() << " bytes)\n";
  return FinishWithDamage(capture, err);
}

}  // namespace memframe::analysis
