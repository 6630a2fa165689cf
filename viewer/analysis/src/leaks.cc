#include "memframe/analysis/leaks.h"

#include <algorithm>
#include <unordered_map>

namespace memframe::analysis {

LeakReport CollectLeaks(const LiveSet& live) {
  std::unordered_map<uint32_t, LeakSite> by_stack;
  LeakReport report;
  for (const auto& [address, block] : live.blocks()) {
    LeakSite& site = by_stack[block.stack_id];
    site.stack_id = block.stack_id;
    site.blocks++;
    site.bytes += block.size;
    report.total_blocks++;
    report.total_bytes += block.size;
  }
  report.sites.reserve(by_stack.size());
  for (auto& [id, site] : by_stack) report.sites.push_back(site);
  std::sort(report.sites.begin(), report.sites.end(), [](const LeakSite& a, const LeakSite& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.blocks != b.blocks) return a.blocks > b.blocks;
    return a.stack_id < b.stack_id;
  });
  return report;
}

}  // namespace memframe::analysis
