#include "memframe/analysis/mapped_regions.h"

#include <algorithm>

namespace memframe::analysis {

void MappedRegions::Map(const Event& map, const CutFn& on_cut) {
  if (map.size == 0) return;
  // A new mapping over an old one (MAP_FIXED) replaces what was there.
  Unmap(map.address, map.size, on_cut);
  MappedRegion region{map.address, map.address + map.size, map.stack_id, map.frame};
  regions_[region.start] = region;
  mapped_bytes_ += map.size;
}

void MappedRegions::Unmap(uint64_t address, uint64_t size, const CutFn& on_cut) {
  const uint64_t end = address + size;
  auto it = regions_.upper_bound(address);
  if (it != regions_.begin()) --it;
  while (it != regions_.end() && it->second.start < end) {
    MappedRegion region = it->second;
    if (region.end <= address) {
      ++it;
      continue;
    }
    it = regions_.erase(it);
    const uint64_t cut_start = std::max(region.start, address);
    const uint64_t cut_end = std::min(region.end, end);
    mapped_bytes_ -= cut_end - cut_start;
    if (on_cut) on_cut(region, cut_end - cut_start);
    if (region.start < cut_start) {
      MappedRegion left = region;
      left.end = cut_start;
      regions_[left.start] = left;
    }
    if (cut_end < region.end) {
      MappedRegion right = region;
      right.start = cut_end;
      it = regions_.emplace(right.start, right).first;
      ++it;
    }
  }
}

const MappedRegion* MappedRegions::Find(uint64_t address) const {
  auto it = regions_.upper_bound(address);
  if (it == regions_.begin()) return nullptr;
  --it;
  return address < it->second.end ? &it->second : nullptr;
}

}  // namespace memframe::analysis
