#include "range_totals.h"

namespace memframe::viewer {

RangeTotals TotalsOf(Session& session, analysis::FrameRange range) {
  RangeTotals t;
  const auto& frames = session.frames().frames;
  auto [first, end] = session.frames().RowsIn(range);
  for (size_t row = first; row < end; ++row) t.alloc_time_ns += frames[row].alloc_time_ns;
  const analysis::ClassFilter& filter = session.class_filter();
  t.classes_filtered = !filter.KeepsAll();
  if (!t.classes_filtered) {
    for (size_t row = first; row < end; ++row) {
      t.allocations += frames[row].allocations;
      t.frees += frames[row].frees;
      t.bytes_allocated += frames[row].bytes_allocated;
      t.bytes_freed += frames[row].bytes_freed;
      t.live_bytes_at_end = frames[row].live_bytes;
    }
    return t;
  }
  const analysis::LiveSeries& series = session.ClassSeries();
  auto kept = [&](size_t group) { return filter.Keeps(static_cast<analysis::ModuleClass>(group)); };
  for (size_t row = first; row < end && row < series.rows(); ++row) {
    const analysis::LiveFigures f = series.Sum(row, kept);
    t.allocations += f.allocations;
    t.frees += f.frees;
    t.bytes_allocated += f.bytes_allocated;
    t.bytes_freed += f.bytes_freed;
    t.live_bytes_at_end = f.live_bytes;
  }
  return t;
}

}  // namespace memframe::viewer
