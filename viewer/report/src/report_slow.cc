// `slow`: the slowest single allocator calls, each with its frame, phase,
// size and site, beside its frame's whole allocator time (slow_calls.h). It
// judges steady play by default, as `hidden` does: a slow call in a load is
// expected, one in play is a stutter.
#include <algorithm>

#include "memframe/analysis/slow_calls.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

constexpr size_t kSlowCallsShown = 20;

struct SlowRows {
  JudgedFrames judged;
  SlowCalls found;
};

SlowRows ComputeSlowRows(const ReportInput& input) {
  SlowRows rows;
  rows.judged = JudgedFramesOf(input, AllFramesRange(input));
  std::function<bool(uint32_t)> keep;
  if (!input.options.classes.KeepsAll()) keep = [&](uint32_t stack_id) { return KeepsSite(input, stack_id); };
  rows.found = FindSlowCalls(input.capture.main, rows.judged.ranges, kSlowCallsShown, keep);
  return rows;
}

uint64_t FrameAllocatorNs(const ReportInput& input, uint64_t frame) {
  const FrameStats* row = input.heap.frames.Find(frame);
  return row ? row->alloc_time_ns : 0;
}

}  // namespace

void WriteSlowText(const ReportInput& input, std::ostream& out) {
  const SlowRows rows = ComputeSlowRows(input);
  const Stream& stream = input.capture.main;
  out << "The slowest allocator calls in " << JudgedFramesText(rows.judged) << ClassesShown(input) << "\n"
      << Plural(rows.found.calls_timed, "call") << ", " << FormatDuration(stream.clock.DurationNs(rows.found.time_ticks))
      << " in the allocator; `frame total` is the whole allocator time of the call's frame\n\n";
  if (rows.found.calls.empty()) {
    out << "none\n";
    return;
  }
  const bool threads = ShowsThreads(input);
  std::vector<TextTable::Column> columns = {{"#"},     {"frame"}, {"phase", true}, {"call", true},
                                            {"time"},  {"size"},  {"frame total"}};
  if (threads) columns.push_back({"thread", true});
  columns.insert(columns.end(), {{"class", true}, {"site", true}, {"location", true}});
  TextTable table(columns);
  size_t rank = 0;
  for (const SlowCall& call : rows.found.calls) {
    const SiteView v = NameStack(call.stack_id, input);
    std::vector<std::string> cells = {std::to_string(++rank),
                                      std::to_string(call.frame),
                                      PhaseNameOf(input.heap.frames, call.frame),
                                      CallName(call.packed_kind),
                                      FormatDuration(stream.clock.DurationNs(call.duration_ticks)),
                                      call.size ? FormatBytes(call.size) : "",
                                      FormatDuration(FrameAllocatorNs(input, call.frame))};
    if (threads) cells.push_back(ThreadName(stream, call.thread));
    cells.insert(cells.end(), {ClassCell(v), call.stack_id ? NameCell(v) : "(a free: memframe run --free-stacks records its site)",
                               v.location});
    table.AddRow(cells);
  }
  table.Write(out);
}

void WriteSlowJson(const ReportInput& input, std::ostream& out) {
  const SlowRows rows = ComputeSlowRows(input);
  const Stream& stream = input.capture.main;
  json calls = json::array();
  for (const SlowCall& call : rows.found.calls) {
    const uint16_t thread = call.thread;
    calls.push_back({{"frame", call.frame},
                     {"phase", PhaseNameOf(input.heap.frames, call.frame)},
                     {"call", CallName(call.packed_kind)},
                     {"duration_ns", stream.clock.DurationNs(call.duration_ticks)},
                     {"size", call.size},
                     {"frame_alloc_time_ns", FrameAllocatorNs(input, call.frame)},
                     {"tid", thread < stream.threads.size() ? stream.threads[thread].tid : 0},
                     {"thread", ThreadName(stream, thread)},
                     {"site", call.stack_id ? StackRefJson(NameStack(call.stack_id, input), input.json_stacks)
                                            : json(nullptr)}});
  }
  Emit({{"judged_frames", JudgedFramesJson(rows.judged)},
        {"module_classes_shown", ClassesShownJson(input)},
        {"calls_timed", rows.found.calls_timed},
        {"alloc_time_ns", stream.clock.DurationNs(rows.found.time_ticks)},
        {"calls", std::move(calls)}},
       input, out);
}

}  // namespace memframe::analysis
