#include "thread_table.h"

#include <unordered_map>

#include "memframe/analysis/ratios.h"

namespace memframe::viewer {

ThreadTable BuildThreadTable(const analysis::ThreadHistory& history, const analysis::FrameTable& frames,
                             analysis::FrameRange range, analysis::JudgedFrames judged) {
  ThreadTable table;
  table.range = range;
  const analysis::ThreadReport over_range = analysis::SumThreads(history, {range}, frames.CountIn(range));
  const analysis::ThreadReport over_judged = analysis::SumThreads(history, judged.ranges, judged.count);
  std::unordered_map<uint32_t, const analysis::ThreadStats*> judged_of;  // by tid
  for (const analysis::ThreadStats& t : over_judged.threads) judged_of[t.tid] = &t;
  table.alloc_time_ns = over_range.alloc_time_ns;
  for (const analysis::ThreadStats& t : over_range.threads) {
    ThreadRow row;
    row.range = t;
    auto it = judged_of.find(t.tid);
    if (it != judged_of.end()) {
      row.allocations_per_frame = analysis::PerFrame(it->second->allocations, judged.count);
      row.frees_per_frame = analysis::PerFrame(it->second->frees, judged.count);
      row.bytes_per_frame = analysis::PerFrame(it->second->bytes, judged.count);
    }
    table.rows.push_back(std::move(row));
  }
  table.judged = std::move(judged);
  return table;
}

}  // namespace memframe::viewer
