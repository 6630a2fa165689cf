// `threads`: who allocated, by thread (thread_stats.h).
#include "memframe/analysis/ratios.h"
#include "memframe/analysis/thread_stats.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

// Under --thread, the selected threads only: the stream also holds the
// frees other threads made of their blocks, which are no row of their own.
ThreadReport Analyze(const ReportInput& input) {
  ThreadReport r = AnalyzeThreads(input.capture.main, input.heap.frames.frames.size());
  if (input.threads.empty()) return r;
  const auto& threads = input.capture.main.threads;
  std::erase_if(r.threads, [&](const ThreadStats& t) {
    for (size_t i = 0; i < threads.size(); ++i)
      if (threads[i].tid == t.tid && input.threads[i]) return false;
    return true;
  });
  return r;
}

}  // namespace

void WriteThreadsText(const ReportInput& input, std::ostream& out) {
  ThreadReport r = Analyze(input);
  out << "Threads by allocations (" << FormatCount(r.frames) << " frames; allocator time "
      << FormatDuration(r.alloc_time_ns) << " in all)\n\n";
  TextTable table({{"tid"}, {"name", true}, {"allocations"}, {"bytes"}, {"frees"}, {"freed"}, {"allocs/frame"},
                   {"frames"}, {"allocator time"}, {"share"}});
  for (const ThreadStats& t : r.threads) {
    table.AddRow({std::to_string(t.tid), t.name.empty() ? "(unnamed)" : t.name, FormatCount(t.allocations),
                  FormatBytes(t.bytes), FormatCount(t.frees), FormatBytes(t.bytes_freed),
                  FormatRate(PerFrame(t.allocations, r.frames)),
                  FormatCount(t.frames_with_allocations),
                  FormatDuration(t.alloc_time_ns), FormatPercent(Share(t.alloc_time_ns, r.alloc_time_ns))});
  }
  table.Write(out);
}

void WriteThreadsJson(const ReportInput& input, std::ostream& out) {
  ThreadReport r = Analyze(input);
  json rows = json::array();
  for (const ThreadStats& t : r.threads) rows.push_back(ThreadJson(t, PerFrame(t.allocations, r.frames), r.alloc_time_ns));
  Emit({{"frames", r.frames}, {"alloc_time_ns", r.alloc_time_ns}, {"threads", std::move(rows)}}, out);
}

}  // namespace memframe::analysis
