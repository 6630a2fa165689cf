// RunExport: load, analyse, write one export file (export.h).
#include <fstream>

#include "memframe/analysis/export.h"
#include "report_input.h"

namespace memframe::analysis {

int RunExport(const ExportRequest& request, std::ostream& out, std::ostream& err) {
  if (request.format != "pprof" && request.format != "folded") {
    err << "memframe: error: unknown export format '" << request.format << "' (formats: folded, pprof)\n";
    return 2;
  }
  if (request.output.empty()) {
    err << "memframe: error: no output file given (-o FILE)\n";
    return 2;
  }
  Capture capture;
  if (int code = LoadCaptureForReport(request.capture_path, &capture, err); code >= 0) return code;
  HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules);
  std::string bytes = request.format == "pprof" ? Gzip(PprofProfile(capture, heap, symbolizer))
                                                : FoldedStacks(capture.main, heap, symbolizer);
  std::ofstream file(request.output, std::ios::binary | std::ios::trunc);
  file << bytes;
  file.close();
  if (!file) {
    err << "memframe: error: cannot write " << request.output << '\n';
    return 2;
  }
  out << "memframe: " << request.format << " export of " << heap.sites.sites().size() << " call stacks written to "
      << request.output << " (" << bytes.size() << " bytes)\n";
  return FinishWithDamage(capture, err);
}

}  // namespace memframe::analysis
