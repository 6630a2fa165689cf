// What a range of frames allocated and freed, as the views' headers say it:
// of the classes the class filter keeps (the toggle row, --only / --hide),
// the same classes their tables keep, with the figures `memframe report
// frames --only ...` gives (Session::ClassSeries).
#pragma once

#include <cstdint>

#include "memframe/analysis/frame_range.h"
#include "session.h"

namespace memframe::viewer {

struct RangeTotals {
  uint64_t allocations = 0, frees = 0, bytes_allocated = 0, bytes_freed = 0;
  uint64_t live_bytes_at_end = 0;
  // Time inside the allocator is not split by class (the agent times calls,
  // not sites' shares of them): it is every class's, as in the CLI's
  // frames report.
  uint64_t alloc_time_ns = 0;
  bool classes_filtered = false;  // the figures above are of some classes only (all but the time)
};

RangeTotals TotalsOf(Session& session, analysis::FrameRange range);

}  // namespace memframe::viewer
