#include "memframe/analysis/leaks.h"

#include <algorithm>
#include <unordered_map>

namespace memframe::analysis {

namespace {

void SortSites(std::vector<LeakSite>& sites) {
  std::sort(sites.begin(), sites.end(), [](const LeakSite& a, const LeakSite& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.blocks != b.blocks) return a.blocks > b.blocks;
    return a.stack_id < b.stack_id;
  });
}

}  // namespace

LeakReport CollectLeaks(const LiveSet& live) { return CollectLeaks(live, {0, UINT64_MAX}); }

LeakReport CollectLeaks(const LiveSet& live, FrameRange allocated_in) {
  std::unordered_map<uint32_t, LeakSite> by_stack;
  LeakReport report;
  for (const auto& [address, block] : live.blocks()) {
    if (!allocated_in.Contains(block.frame)) continue;
    LeakSite& site = by_stack[block.stack_id];
    site.stack_id = block.stack_id;
    site.blocks++;
    site.bytes += block.size;
    report.total_blocks++;
    report.total_bytes += block.size;
  }
  report.sites.reserve(by_stack.size());
  for (auto& [id, site] : by_stack) report.sites.push_back(site);
  SortSites(report.sites);
  return report;
}

LeakReport GroupLeaks(const LeakReport& leaks, const GroupedSites& groups) {
  std::unordered_map<uint32_t, uint32_t> representative;
  for (const auto& [rep, members] : groups.members)
    for (uint32_t id : members) representative[id] = rep;
  std::unordered_map<uint32_t, LeakSite> by_group;
  for (const LeakSite& site : leaks.sites) {
    auto rep = representative.find(site.stack_id);
    const uint32_t id = rep == representative.end() ? site.stack_id : rep->second;
    LeakSite& group = by_group[id];
    group.stack_id = id;
    group.blocks += site.blocks;
    group.bytes += site.bytes;
  }
  LeakReport grouped{leaks.total_blocks, leaks.total_bytes, {}};
  grouped.sites.reserve(by_group.size());
  for (auto& [id, site] : by_group) grouped.sites.push_back(site);
  SortSites(grouped.sites);
  return grouped;
}

}  // namespace memframe::analysis
