// The flame graph of a selection: every stack's allocations and bytes in the
// selected frames (or its live blocks at the end of the selected frame)
// folded top-down into the diff's call tree (call_tree.h), and the callers
// and callees of one function. No ImGui: the flame view draws it and the
// unit tests check its sums.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "call_tree.h"
#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/live_set.h"

namespace memframe::viewer {

class Session;

enum class FlameMetric { kAllocations, kBytes, kLiveBytes };
const char* FlameMetricName(FlameMetric metric);  // "allocations", "bytes", "live"
std::optional<FlameMetric> ParseFlameMetric(std::string_view name);

// One stack's share of the selection: allocations and their bytes, or (live
// bytes) the blocks of that stack live at the cut and their bytes.
struct FlameRow {
  uint32_t stack_id = 0;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
};

// Per stack, what it allocated in `range`, by bytes descending (SitesInRange).
std::vector<FlameRow> FlameRowsInRange(const analysis::CallSiteIndex& sites, analysis::FrameRange range);
// Per stack, its live blocks, by bytes descending, then stack id.
std::vector<FlameRow> FlameRowsLive(const analysis::LiveSet& live);
// The rows of `metric` for a selection, only of the sites the class filter
// keeps: range for allocations and bytes, the end of range.to for live bytes.
std::vector<FlameRow> FlameRowsOf(Session& session, FlameMetric metric, analysis::FrameRange range);

// The flame graph: the rows folded outermost caller first. A node's blocks
// are in blocks_b, its bytes in bytes_b (A is empty), so the tree and its
// sums are the diff's own code. Nodes are per function and file, not line
// (one box per caller, whichever line called). Children come by bytes
// descending.
CallTree BuildFlameTree(const std::vector<FlameRow>& rows, const CallTree::StackFrames& frames);
// The width a node gets: its blocks for allocations, else its bytes.
uint64_t FlameValue(const CallTreeNode& node, FlameMetric metric);

// The function a name picks: a node's function equal to `name`, else the
// function of the largest node (by `metric`) whose function contains it;
// "" when none does.
std::string ResolveFlameFunction(const CallTree& tree, FlameMetric metric, const std::string& name);

// Who calls a function and whom it calls, over the stacks that contain it
// (each counted once, at its outermost call of the function).
struct FlameNeighbour {
  std::string function;  // "(self)": allocated in the function itself; "(outermost)": nobody calls it
  uint64_t blocks = 0, bytes = 0;
};
struct CallersCallees {
  std::string function;
  uint64_t blocks = 0, bytes = 0;  // of every stack through the function
  std::vector<FlameNeighbour> callers, callees;  // by bytes, then blocks (descending), then name
};
CallersCallees FindCallersCallees(const std::vector<FlameRow>& rows, const CallTree::StackFrames& frames,
                                  const std::string& function);

}  // namespace memframe::viewer
