// Internal to phases.cc: the per-frame series the phase detector reads, the
// runs of rows it makes, and the cutting of steady play into plateaus.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "memframe/analysis/phase.h"

namespace memframe::analysis {

// Allocated bytes, allocations, live heap and growth (0 when it shrank) of
// each ended row of a frame table.
struct PhaseSeries {
  std::vector<uint64_t> bytes, allocations, live, growth;
  uint64_t LiveBefore(size_t row) const { return row ? live[row - 1] : 0; }
};

// Rows first..last (inclusive) of one phase, or of a run of frames that is
// no phase (kind kSteady from FindRuns: its frames are spikes).
struct PhaseRun {
  size_t first = 0, last = 0;
  size_t heavy = 0;    // rows in it that allocate far above their baseline
  bool burst = false;  // a row in it makes kBurstRatio times its baseline's allocations
  bool transition = false;  // a row in it takes the game from one level of allocation to another
  PhaseKind kind = PhaseKind::kSteady;
};

// The median of rows [from, to) of `values` (the lower middle of an even count).
uint64_t MedianOfRows(const std::vector<uint64_t>& values, size_t from, size_t to);

// Whether rows [first, middle) and [middle, end) of `values` are at levels
// that differ for good (the plateau rule, phases.h step 4).
bool LevelsDiffer(const std::vector<uint64_t>& values, size_t first, size_t middle, size_t end);

// Steady rows first..last cut where the allocation rate changes for good
// (phases.h, step 4), in order. A plateau whose live heap grows by the load
// limit while it allocates at least twice the bytes a frame of the plateaus
// next to it is a long load (kLoad): a level streamed in over many frames.
std::vector<PhaseRun> CutPlateaus(const PhaseSeries& s, size_t first, size_t last);

}  // namespace memframe::analysis
