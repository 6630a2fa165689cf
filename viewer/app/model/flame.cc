#include "flame.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "session.h"
#include "snapshots.h"

namespace memframe::viewer {

const char* FlameMetricName(FlameMetric metric) {
  switch (metric) {
    case FlameMetric::kAllocations: return "allocations";
    case FlameMetric::kBytes: return "bytes";
    case FlameMetric::kLiveBytes: return "live";
  }
  return "bytes";
}

std::optional<FlameMetric> ParseFlameMetric(std::string_view name) {
  for (FlameMetric m : {FlameMetric::kAllocations, FlameMetric::kBytes, FlameMetric::kLiveBytes})
    if (name == FlameMetricName(m)) return m;
  return std::nullopt;
}

namespace {

void SortByBytes(std::vector<FlameRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const FlameRow& a, const FlameRow& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.blocks != b.blocks) return a.blocks > b.blocks;
    return a.stack_id < b.stack_id;
  });
}

}  // namespace

std::vector<FlameRow> FlameRowsInRange(const analysis::CallSiteIndex& sites, analysis::FrameRange range) {
  std::vector<FlameRow> rows;
  // frames_in_range only feeds the per-frame medians, which a flame ignores.
  for (const analysis::SiteStats& s : analysis::SitesInRange(sites, range, 1))
    rows.push_back({s.stack_id, s.allocations, s.bytes});
  return rows;
}

std::vector<FlameRow> FlameRowsLive(const analysis::LiveSet& live) {
  std::unordered_map<uint32_t, FlameRow> by_stack;
  for (const auto& [address, block] : live.blocks()) {
    FlameRow& row = by_stack[block.stack_id];
    row.stack_id = block.stack_id;
    row.blocks++;
    row.bytes += block.size;
  }
  std::vector<FlameRow> rows;
  rows.reserve(by_stack.size());
  for (const auto& [id, row] : by_stack) rows.push_back(row);
  SortByBytes(rows);
  return rows;
}

std::vector<FlameRow> FlameRowsOf(Session& session, FlameMetric metric, analysis::FrameRange range) {
  std::vector<FlameRow> rows =
      metric == FlameMetric::kLiveBytes
          ? FlameRowsLive(session.heap().live_sets.AtFrame(session.capture().main, range.to))
          : FlameRowsInRange(session.heap().sites, range);
  std::erase_if(rows, [&](const FlameRow& r) { return !session.Keeps(r.stack_id); });
  return rows;
}

CallTree BuildFlameTree(const std::vector<FlameRow>& rows, const CallTree::StackFrames& frames) {
  std::vector<analysis::LiveSetDiffRow> as_diff;
  as_diff.reserve(rows.size());
  for (const FlameRow& r : rows) {
    analysis::LiveSetDiffRow d;
    d.stack_id = r.stack_id;
    d.blocks_b = r.blocks;
    d.bytes_b = r.bytes;
    as_diff.push_back(d);
  }
  // A flame graph has one box per function and caller, whichever line
  // called: the frames keep their file, not their line.
  return CallTree::Build(as_diff, CallTree::Order::kTopDown, [&frames](uint32_t id) {
    std::vector<TreeFrame> stack = frames(id);
    for (TreeFrame& f : stack) {
      size_t colon = f.location.rfind(':');
      if (colon != std::string::npos) f.location.resize(colon);
    }
    return stack;
  });
}

uint64_t FlameValue(const CallTreeNode& node, FlameMetric metric) {
  return metric == FlameMetric::kAllocations ? node.blocks_b : node.bytes_b;
}

std::string ResolveFlameFunction(const CallTree& tree, FlameMetric metric, const std::string& name) {
  if (name.empty()) return "";
  const CallTreeNode* best = nullptr;
  for (size_t i = 1; i < tree.size(); ++i) {
    const CallTreeNode& n = tree.node(static_cast<uint32_t>(i));
    if (n.function == name) return name;
    if (n.function.find(name) != std::string::npos && (!best || FlameValue(n, metric) > FlameValue(*best, metric)))
      best = &n;
  }
  return best ? best->function : "";
}

CallersCallees FindCallersCallees(const std::vector<FlameRow>& rows, const CallTree::StackFrames& frames,
                                  const std::string& function) {
  CallersCallees out;
  out.function = function;
  std::map<std::string, FlameNeighbour> callers, callees;
  auto add = [](std::map<std::string, FlameNeighbour>& to, const std::string& name, const FlameRow& row) {
    FlameNeighbour& n = to[name];
    n.function = name;
    n.blocks += row.blocks;
    n.bytes += row.bytes;
  };
  for (const FlameRow& row : rows) {
    const std::vector<TreeFrame> stack = frames(row.stack_id);  // innermost first
    // The outermost call: recursion counts the stack once.
    size_t at = stack.size();
    for (size_t i = stack.size(); i-- > 0;) {
      if (stack[i].function == function) {
        at = i;
        break;
      }
    }
    if (at == stack.size()) continue;
    out.blocks += row.blocks;
    out.bytes += row.bytes;
    add(callers, at + 1 < stack.size() ? stack[at + 1].function : "(outermost)", row);
    add(callees, at > 0 ? stack[at - 1].function : "(self)", row);
  }
  auto sorted = [](std::map<std::string, FlameNeighbour>& m) {
    std::vector<FlameNeighbour> v;
    for (auto& [name, n] : m) v.push_back(std::move(n));
    std::stable_sort(v.begin(), v.end(), [](const FlameNeighbour& a, const FlameNeighbour& b) {
      if (a.bytes != b.bytes) return a.bytes > b.bytes;
      return a.blocks > b.blocks;
    });
    return v;
  };
  out.callers = sorted(callers);
  out.callees = sorted(callees);
  return out;
}

}  // namespace memframe::viewer
