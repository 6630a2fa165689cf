// RunReport / PrintRunSummary: load, analyse, pick the renderer, and turn
// every problem into one message and an exit code (report.h).
#include "memframe/report/report.h"

#include <sstream>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/summary_index.h"
#include "memframe/analysis/summary_load.h"
#include "memframe/report/capture_notes.h"
#include "memframe/report/report_registry.h"
#include "memframe/report/units.h"
#include "report_input.h"
#include "memframe/command_line.h"

namespace memframe::analysis {

namespace {

// A loaded capture with nothing to report is a usage error.
int CheckHasMain(const std::string& path, const Capture* capture, std::ostream& err) {
  if (!capture->has_main) {
    // Damage before the first event says nothing about the agent.
    if (capture->damage.empty())
      ErrorLine(err) << path << " holds no data from the program (the agent never connected)\n";
    else
      ErrorLine(err) << path << ": " << capture->damage << ", before any data from the program\n";
    return kExitMemframeError;
  }
  return -1;
}

// The summary's model from the capture's summary index, or in one pass
// (summary_index.h, summary_load.h); -1 when loaded.
int LoadSummaryForReport(const std::string& path, Capture* capture, HeapAnalysis* heap, std::ostream& err,
                         const LoadProgressFn& progress = {}) {
  std::string error, note;
  const bool loaded = LoadSummaryIndexed(path, capture, heap, &error, progress, &note);
  if (!note.empty()) err << "memframe: note: " << note << '\n';
  if (!loaded) {
    ErrorLine(err) << error << '\n';
    return kExitMemframeError;
  }
  return CheckHasMain(path, capture, err);
}

// The reports made of the capture's description and the heap analysis'
// frames, sites and totals alone: the summary index holds all they read.
bool ServedBySummary(const std::string& report) { return report == "summary" || report == "phases"; }

}  // namespace

int LoadCaptureForReport(const std::string& path, Capture* capture, std::ostream& err,
                         const LoadProgressFn& progress) {
  std::string error;
  if (!LoadCapture(path, capture, &error, progress)) {
    ErrorLine(err) << error << '\n';
    return kExitMemframeError;
  }
  return CheckHasMain(path, capture, err);
}

// A stream without its EndOfStream stopped early: the program ended without
// running its exit handlers, or the agent lost its connection (a program
// that closes every fd closes the agent's too). Its figures stop there, and
// blocks freed after that point look like leaks: say so.
void WarnIfStreamUnended(const Capture& capture, std::ostream& err, const HeapAnalysis* heap) {
  // Every report of an attached capture says where it starts.
  if (capture.main.process.window.present) {
    err << "memframe: note: this capture is " << DescribeAttach(capture) << ", and their frees";
    if (heap) err << " (" << FormatCount(heap->anomalies.freed_before_attach) << ")";
    err << " are counted apart\n";
  } else if (capture.main.process.attached) {
    err << "memframe: note: this capture starts at an attach to a running process (memframe attach): blocks "
           "allocated before it are unknown, and their frees";
    if (heap) err << " (" << FormatCount(heap->anomalies.freed_before_attach) << ")";
    err << " are counted apart\n";
  }
  if (capture.main.has_end || !capture.damage.empty()) return;
  // A window saved while the program ran ends where it was saved.
  if (capture.recorder.kept_window.present && capture.recorder.detached) return;
  err << "memframe: warning: the program's stream ended without its end record: the program exited without "
         "running its exit handlers (_exit, a crash, a signal) or the agent's connection was lost (the program "
         "may have closed it); figures after that point are missing, and blocks freed after it show as leaks\n";
}

int FinishWithDamage(const Capture& capture, std::ostream& err, const std::string& program,
                     const HeapAnalysis* heap) {
  WarnIfStreamUnended(capture, err, heap);
  if (capture.damage.empty()) return kExitOk;
  err << program << ": warning: " << capture.damage << " — reporting the " << EventCount(capture.main)
      << " events read before it\n";
  return kExitDamagedCapture;
}

int RunReport(const ReportRequest& request, std::ostream& out, std::ostream& err) {
  const ReportDef* report = FindReport(request.report);
  if (!report) {
    ErrorLine(err) << "unknown report '" << request.report << "' (reports: " << ReportNames() << ")\n";
    return kExitMemframeError;
  }
  ReportOptions options;
  std::string error;
  if (!ParseReportArgs(report->name, request.args, &options, &error)) {
    ErrorLine(err) << error << '\n';
    return kExitMemframeError;
  }
  bool json = request.json;
  for (const std::string& arg : request.args) json = json || arg == "--json";

  Capture capture;
  HeapAnalysis heap;
  // Progress hook (reading that scales): the bar erases itself when loading
  // and analysing end, before anything else is written to `err`.
  ProgressBar bar(err);
  LoadProgressFn progress = request.progress ? bar.Callback() : LoadProgressFn();
  ThreadSelection threads;
  if (ServedBySummary(report->name) && options.threads.empty() && !request.whole_load) {
    // No event kept (summary_load.h): the index, or one pass.
    if (int code = LoadSummaryForReport(request.capture_path, &capture, &heap, err, progress); code >= 0) return code;
  } else {
    if (int code = LoadCaptureForReport(request.capture_path, &capture, err, progress); code >= 0) return code;
    // --thread: the one place the other threads' events leave the stream, so
    // every analysis below sees the same selection.
    if (!ResolveThreads(capture.main, options.threads, &threads, &error)) {
      ErrorLine(err) << error << '\n';
      return kExitMemframeError;
    }
    FilterThreads(&capture.main, threads);
    heap = AnalyzeHeap(capture.main, progress);
  }
  Symbolizer symbolizer(capture.main.modules, ClassifierFor(capture.main, options.class_rules));
  ReportInput input{capture, heap, symbolizer, options, std::nullopt, {}, std::move(threads), std::nullopt, {}};
  // Rendered aside first: a report that finds a problem half-way prints
  // nothing on stdout, only its message.
  std::ostringstream rendered;
  try {
    (json ? report->json : report->text)(input, rendered);
  } catch (const ReportError& e) {
    ErrorLine(err) << e.what() << '\n';
    return kExitMemframeError;
  }
  out << rendered.str();
  return FinishWithDamage(capture, err, "memframe", &heap);
}

int PrintRunSummary(const std::string& capture_path, std::ostream& out, std::ostream& err) {
  Capture capture;
  HeapAnalysis heap;
  if (int code = LoadSummaryForReport(capture_path, &capture, &heap, err); code >= 0) return code;
  return PrintRunSummary(capture, heap, out, err);
}

int PrintRunSummary(const Capture& capture, const HeapAnalysis& heap, std::ostream& out, std::ostream& err) {
  if (int code = CheckHasMain(capture.path, &capture, err); code >= 0) return code;
  Symbolizer symbolizer(capture.main.modules, ClassifierFor(capture.main));
  ReportInput input{capture, heap, symbolizer, ReportOptions{}, std::nullopt, {}, {}, std::nullopt, {}};
  WriteSummaryText(input, 5, out);
  return FinishWithDamage(capture, err, "memframe", &heap);
}

}  // namespace memframe::analysis
