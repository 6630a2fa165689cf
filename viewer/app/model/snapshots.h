// The live heap and the address space at the end of a frame, taken from the
// session's live-set index (checkpoints) rather than a replay of the whole
// capture: what the diff and fragmentation views compute when the
// selection changes, never per drawn frame.
#pragma once

#include <cstdint>
#include <vector>

#include "call_tree.h"
#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/fragmentation.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/live_set_diff.h"
#include "session.h"

namespace memframe::viewer {

// The comparison the diff view opens with, as `memframe report diff` with no
// arguments: across the largest load (phases.h), A = the frame before it,
// B = its last frame. A run with no load after start-up: A = the frame
// before the biggest spike (by allocated bytes; the biggest frame when none
// is a spike), B = the last frame.
struct DiffRanges {
  analysis::FrameRange a, b;
};
DiffRanges DefaultDiffRanges(const analysis::FrameTable& frames);

// Snapshot A is the live heap at the end of range A's last frame, B at the
// end of range B's last frame.
analysis::LiveSetDiff DiffAtFrames(const Session& session, uint64_t frame_a, uint64_t frame_b);

// The live heap at two cuts (the end of a frame, a named marker, ...; the
// analysis' ResolveCut makes them) compared, each taken from the live-set
// index: the figures `memframe report CAPTURE diff A B` prints.
analysis::LiveSetDiff DiffAtCuts(const Session& session, const analysis::LiveSetCut& a, const analysis::LiveSetCut& b);

// Blocks from `live` (the live-set index's set at the end of `frame`: a
// caller that needs it too makes it once), mappings from the session's
// MAP/UNMAP events: the same address space as analysis::AddressSpaceAtFrame
// (with one thread, exactly; with several, this cut is "every event of
// frames <= F").
analysis::AddressSpace AddressSpaceAt(Session& session, uint64_t frame, const analysis::LiveSet& live);

// A stack from its user frame outwards, as the call tree names it.
std::vector<TreeFrame> UserStackFrames(Session& session, uint32_t stack_id);

// Totals over the heap regions or the mapped ones, as the fragmentation
// report sums them: span is the sum of the regions' spans.
struct RegionTotals {
  uint64_t regions = 0, span = 0, blocks = 0, live_bytes = 0, holes = 0, free_bytes = 0, largest_free_gap = 0;
  double fragmentation = 0;
};
RegionTotals SumRegions(const std::vector<analysis::RegionLayout>& regions, bool mapped);

}  // namespace memframe::viewer
