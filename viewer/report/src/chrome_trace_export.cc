// The Trace Event Format JSON export (export.h): what chrome://tracing,
// Perfetto's UI and Tracy's importer open. Frames and phases are complete
// ("X") events on the presenting thread, phases enclosing their frames; each
// counter ("C") is set at a frame's start to that frame's figure, so it reads
// as the frame's value for the frame's whole slice; the "by class" counters
// carry one series per module class (one arg each: chrome://tracing stacks
// them, Perfetto shows a track per class); markers are thread-scoped
// instants ("i"). With GPU objects (gpu_objects.h), "GPU live bytes" and
// "GPU live bytes by kind" (one arg per kind) at each frame's start, as the
// heap's counters. Timestamps are microseconds of
// CLOCK_MONOTONIC.
#include <nlohmann/json.hpp>

#include "memframe/report/export.h"
#include "memframe/analysis/frame_timeline.h"
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/live_series.h"

namespace memframe::analysis {

namespace {

using TraceJson = nlohmann::json;  // not report_json_common.h's ordered json: a trace's keys are sorted

double Micros(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

TraceJson Metadata(const char* name, uint32_t pid, uint32_t tid, const std::string& value) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", {{"name", value}}}};
}

TraceJson Complete(const std::string& name, const char* category, uint32_t pid, uint32_t tid, int64_t start_ns,
              int64_t end_ns, TraceJson args) {
  return {{"ph", "X"},   {"name", name},         {"cat", category},
          {"pid", pid},  {"tid", tid},           {"ts", Micros(start_ns)},
          {"dur", Micros(end_ns - start_ns)},    {"args", std::move(args)}};
}

TraceJson Counter(const char* name, uint32_t pid, int64_t ns, uint64_t value) {
  return {{"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", Micros(ns)}, {"args", {{"value", value}}}};
}

// Each class's figure in one counter event: a stacked series per class.
TraceJson ClassCounter(const char* name, uint32_t pid, int64_t ns, const LiveSeries& series, size_t row,
                  const std::vector<ModuleClass>& classes, uint64_t (*figure)(const LiveFigures&)) {
  TraceJson args = TraceJson::object();
  for (ModuleClass c : classes) args[ModuleClassName(c)] = figure(series.At(row, static_cast<size_t>(c)));
  return {{"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", Micros(ns)}, {"args", std::move(args)}};
}

}  // namespace

std::string ChromeTraceJson(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer) {
  const Stream& stream = capture.main;
  const uint32_t pid = stream.process.pid;
  const Timeline timeline = BuildTimeline(stream, heap.frames);
  const LiveSeries by_class = ComputeClassSeries(stream, heap.frames, symbolizer);
  const std::vector<ModuleClass> classes = PresentClasses(by_class);
  const GpuAnalysis gpu = AnalyzeGpu(stream, heap.frames);
  const std::vector<GpuKind> gpu_kinds = GpuKindsMade(gpu, true);
  TraceJson events = TraceJson::array();
  events.push_back(Metadata("process_name", pid, 0, stream.process.executable));
  for (const Thread& t : stream.threads) {
    if (t.memframe) continue;
    events.push_back(Metadata("thread_name", pid, t.tid, t.name.empty() ? "thread " + std::to_string(t.tid) : t.name));
  }
  // Phases first: a viewer nests events that start together in the order given.
  for (const TimelinePhase& p : timeline.phases) {
    events.push_back(Complete(PhaseKindName(p.phase.kind), "phase", pid, timeline.presenting_tid, p.start_ns,
                              p.end_ns,
                              {{"first_frame", p.phase.frames.from},
                               {"last_frame", p.phase.frames.to},
                               {"allocations", p.phase.allocations},
                               {"bytes_allocated", p.phase.bytes_allocated},
                               {"bytes_freed", p.phase.bytes_freed},
                               {"live_bytes_before", p.phase.live_before},
                               {"live_bytes_after", p.phase.live_after}}));
  }
  for (size_t i = 0; i < timeline.frames.size(); ++i) {
    const FrameSpan& span = timeline.frames[i];
    const FrameStats& f = heap.frames.frames[i];
    events.push_back(Complete("frame " + std::to_string(f.frame), "frame", pid, span.tid, span.start_ns, span.end_ns,
                              {{"frame", f.frame},
                               {"allocations", f.allocations},
                               {"frees", f.frees},
                               {"bytes_allocated", f.bytes_allocated},
                               {"bytes_freed", f.bytes_freed},
                               {"live_bytes", f.live_bytes},
                               {"mapped_bytes", span.mapped_bytes},
                               {"alloc_time_ns", f.alloc_time_ns},
                               {"ended", f.ended},
                               {"spike", f.spike}}));
    events.push_back(Counter("live heap bytes", pid, span.start_ns, f.live_bytes));
    events.push_back(Counter("mapped bytes", pid, span.start_ns, span.mapped_bytes));
    events.push_back(Counter("allocations", pid, span.start_ns, f.allocations));
    events.push_back(Counter("bytes allocated", pid, span.start_ns, f.bytes_allocated));
    events.push_back(Counter("allocator time ns", pid, span.start_ns, f.alloc_time_ns));
    if (const GpuFrame* g = gpu_kinds.empty() ? nullptr : gpu.Frame(f.frame)) {
      events.push_back(Counter("GPU live bytes", pid, span.start_ns, g->total()));
      TraceJson args = TraceJson::object();
      for (GpuKind k : gpu_kinds) args[GpuKindName(k)] = g->live_bytes[static_cast<int>(k)];
      events.push_back({{"ph", "C"}, {"name", "GPU live bytes by kind"}, {"pid", pid}, {"ts", Micros(span.start_ns)},
                        {"args", std::move(args)}});
    }
    if (classes.empty()) continue;
    events.push_back(ClassCounter("live heap bytes by class", pid, span.start_ns, by_class, i, classes,
                                  [](const LiveFigures& c) { return c.live_bytes; }));
    events.push_back(ClassCounter("mapped bytes by class", pid, span.start_ns, by_class, i, classes,
                                  [](const LiveFigures& c) { return c.mapped_bytes; }));
    events.push_back(ClassCounter("allocations by class", pid, span.start_ns, by_class, i, classes,
                                  [](const LiveFigures& c) { return c.allocations; }));
    events.push_back(ClassCounter("bytes allocated by class", pid, span.start_ns, by_class, i, classes,
                                  [](const LiveFigures& c) { return c.bytes_allocated; }));
  }
  for (const TimelineMarker& m : timeline.markers) {
    events.push_back({{"ph", "i"},
                      {"s", "t"},
                      {"name", m.name},
                      {"cat", "marker"},
                      {"pid", pid},
                      {"tid", m.tid},
                      {"ts", Micros(m.ns)},
                      {"args", {{"frame", m.frame}}}});
  }
  TraceJson trace = {{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ms"},
                {"otherData", {{"producer", "memframe"}, {"capture", capture.path}}}};
  return trace.dump() + "\n";
}

}  // namespace memframe::analysis
