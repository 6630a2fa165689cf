#include "memframe/analysis/locality.h"

#include <algorithm>
#include <unordered_map>

namespace memframe::analysis {

namespace {

// Distinct units of `unit` bytes touched by blocks sorted by address.
uint64_t DistinctUnits(const std::vector<std::pair<uint64_t, uint64_t>>& blocks, uint64_t unit) {
  uint64_t count = 0;
  uint64_t next = 0;  // the first unit not counted yet
  bool any = false;
  for (const auto& [address, size] : blocks) {
    uint64_t first = address / unit;
    uint64_t last = (address + std::max<uint64_t>(size, 1) - 1) / unit;
    if (any && first < next) first = next;
    if (first <= last) count += last - first + 1;
    next = std::max(next, last + 1);
    any = true;
  }
  return count;
}

}  // namespace

std::vector<SiteLocality> AnalyzeLocality(const LiveSet& live, const CallSiteIndex& sites, uint64_t frames) {
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> by_site;
  for (const auto& [address, block] : live.blocks()) by_site[block.stack_id].emplace_back(address, block.size);
  std::vector<SiteLocality> out;
  out.reserve(by_site.size());
  for (auto& [stack, blocks] : by_site) {
    std::sort(blocks.begin(), blocks.end());
    SiteLocality l;
    l.stack_id = stack;
    l.blocks = blocks.size();
    for (const auto& [address, size] : blocks) l.bytes += size;
    l.pages = DistinctUnits(blocks, kPageBytes);
    l.cache_lines = DistinctUnits(blocks, kCacheLineBytes);
    l.packed_pages = (l.bytes + kPageBytes - 1) / kPageBytes;
    uint64_t end = 0;
    for (const auto& [address, size] : blocks) end = std::max(end, address + size);
    l.span = end - blocks.front().first;
    const SiteHistory* history = sites.Find(stack);
    l.per_frame = stack != 0 && history && frames &&
                  static_cast<double>(history->frames.size()) >= kPerFrameShare * static_cast<double>(frames);
    l.scattered = l.per_frame && l.blocks >= kLocalityMinBlocks &&
                  l.pages >= kScatterFactor * std::max<uint64_t>(l.packed_pages, 1);
    out.push_back(l);
  }
  std::sort(out.begin(), out.end(), [](const SiteLocality& a, const SiteLocality& b) {
    if (a.scattered != b.scattered) return a.scattered;
    if (a.pages != b.pages) return a.pages > b.pages;
    return a.stack_id < b.stack_id;
  });
  return out;
}

}  // namespace memframe::analysis
