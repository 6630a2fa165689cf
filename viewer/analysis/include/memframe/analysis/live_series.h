// Live memory over time, split by who allocated: at the end of each frame,
// the heap bytes live and the anonymous-mapping bytes mapped, and what the
// frame allocated and freed, for each of a few groups of call sites: the
// module classes (module_class.h), or the sites a viewer selection picked.
// A block (or a mapped region) stays in the group of the site that
// allocated (mapped) it, so its free counts there too.
//
// One replay of the events; the result holds frames x groups figures, the
// replay a live set and the mapped regions (nothing per event or per site).
// Rows are the FrameTable's: an event counts in its frame's row, or in the
// next row when its frame has none (a frame in which the program only
// mapped memory); a MAP after the last row changes no row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/module_class.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct LiveFigures {
  uint64_t live_bytes = 0;       // heap blocks live at the end of the frame
  uint64_t mapped_bytes = 0;     // anonymous mappings (MAP/UNMAP) at the end of the frame
  uint64_t allocations = 0;      // in the frame, as FrameStats counts them
  uint64_t frees = 0;            // frees of known blocks (and blocks an ALLOC replaced)
  uint64_t bytes_allocated = 0;
  uint64_t bytes_freed = 0;

  LiveFigures& operator+=(const LiveFigures& other);
  bool operator==(const LiveFigures&) const = default;
};

struct LiveSeries {
  size_t groups = 0;
  std::vector<uint64_t> frames;   // row -> frame number (FrameTable::frames)
  std::vector<LiveFigures> cells;  // row * groups + group

  size_t rows() const { return frames.size(); }
  const LiveFigures& At(size_t row, size_t group) const { return cells[row * groups + group]; }
  // The figures of the groups `keep` accepts, added up.
  LiveFigures Sum(size_t row, const std::function<bool(size_t group)>& keep) const;
  // Whether any frame has something of `group` (allocated, freed, live or mapped).
  bool Present(size_t group) const;
};

// The group of the site with this stack id, below `groups`; asked once per
// stack id.
using StackGroupFn = std::function<size_t(uint32_t stack_id)>;

LiveSeries ComputeLiveSeries(const Stream& stream, const FrameTable& table, size_t groups, const StackGroupFn& group_of);

// Group i is ModuleClass i (kModuleClassCount groups).
LiveSeries ComputeClassSeries(const Stream& stream, const FrameTable& table,
                              const std::function<ModuleClass(uint32_t stack_id)>& class_of);
// The same, each stack classed by its site's origin (site_origin.h) as
// `symbolizer` (and its module classifier) names it: what the exports use.
LiveSeries ComputeClassSeries(const Stream& stream, const FrameTable& table, Symbolizer& symbolizer);

// The classes that have figures in a class series, in display order.
std::vector<ModuleClass> PresentClasses(const LiveSeries& series);

}  // namespace memframe::analysis
