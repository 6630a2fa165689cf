#include "memframe/analysis/call_sites.h"

#include <algorithm>

namespace memframe::analysis {

namespace {

uint64_t LowerMedian(std::vector<uint64_t>& values) {
  auto mid = values.begin() + static_cast<long>((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace

void AddSiteThread(std::vector<SiteThread>& threads, uint16_t thread, uint64_t allocations) {
  // Most sites see one thread, a few a handful: a linear search is cheapest.
  for (SiteThread& t : threads) {
    if (t.thread == thread) {
      t.allocations += allocations;
      return;
    }
  }
  threads.push_back({thread, allocations});
}

CallSiteIndex::CallSiteIndex(std::vector<SiteHistory> sites) : sites_(std::move(sites)) {
  std::sort(sites_.begin(), sites_.end(),
            [](const SiteHistory& a, const SiteHistory& b) { return a.stack_id < b.stack_id; });
}

const SiteHistory* CallSiteIndex::Find(uint32_t stack_id) const {
  auto it = std::lower_bound(sites_.begin(), sites_.end(), stack_id,
                             [](const SiteHistory& s, uint32_t id) { return s.stack_id < id; });
  return it != sites_.end() && it->stack_id == stack_id ? &*it : nullptr;
}

void CallSiteBuilder::OnAlloc(const Event& alloc) {
  auto [it, inserted] = index_.try_emplace(alloc.stack_id, sites_.size());
  if (inserted) {
    SiteHistory site;
    site.stack_id = alloc.stack_id;
    site.size_min = site.size_max = alloc.size;
    sites_.push_back(std::move(site));
  }
  SiteHistory& site = sites_[it->second];
  site.allocations++;
  site.bytes += alloc.size;
  site.size_min = std::min(site.size_min, alloc.size);
  site.size_max = std::max(site.size_max, alloc.size);
  AddSiteThread(site.threads, alloc.thread, 1);
  // Events come in tick order, so a site's frames almost always arrive in
  // order; the rare out-of-order entry (threads straddling a frame
  // boundary) is merged in Finish.
  if (site.frames.empty() || site.frames.back().frame != alloc.frame) site.frames.push_back({alloc.frame, 0, 0});
  site.frames.back().allocations++;
  site.frames.back().bytes += alloc.size;
}

CallSiteIndex CallSiteBuilder::Finish() {
  for (SiteHistory& site : sites_) {
    auto by_frame = [](const SiteFrame& a, const SiteFrame& b) { return a.frame < b.frame; };
    if (std::is_sorted(site.frames.begin(), site.frames.end(), by_frame)) continue;
    std::stable_sort(site.frames.begin(), site.frames.end(), by_frame);
    std::vector<SiteFrame> merged;
    for (const SiteFrame& f : site.frames) {
      if (!merged.empty() && merged.back().frame == f.frame) {
        merged.back().allocations += f.allocations;
        merged.back().bytes += f.bytes;
      } else {
        merged.push_back(f);
      }
    }
    site.frames = std::move(merged);
  }
  index_.clear();
  return CallSiteIndex(std::move(sites_));
}

SiteStats SummarizeSite(const SiteHistory& site, FrameRange range, uint64_t frames_in_range) {
  return SummarizeSite(site, std::vector<FrameRange>{range}, frames_in_range);
}

SiteStats SummarizeSite(const SiteHistory& site, const std::vector<FrameRange>& ranges, uint64_t frames_in_range) {
  SiteStats s;
  s.stack_id = site.stack_id;
  s.frames_in_range = frames_in_range;
  s.size_min = site.size_min;
  s.size_max = site.size_max;
  std::vector<uint64_t> allocs, bytes;
  for (const FrameRange& range : ranges) {
    auto first = std::lower_bound(site.frames.begin(), site.frames.end(), range.from,
                                  [](const SiteFrame& f, uint64_t frame) { return f.frame < frame; });
    for (auto it = first; it != site.frames.end() && it->frame <= range.to; ++it) {
      s.allocations += it->allocations;
      s.bytes += it->bytes;
      allocs.push_back(it->allocations);
      bytes.push_back(it->bytes);
    }
  }
  s.frames_with_allocations = allocs.size();
  if (allocs.empty()) return s;
  s.allocs_per_frame_min = *std::min_element(allocs.begin(), allocs.end());
  s.allocs_per_frame_max = *std::max_element(allocs.begin(), allocs.end());
  s.allocs_per_frame_median = LowerMedian(allocs);
  s.bytes_per_frame_min = *std::min_element(bytes.begin(), bytes.end());
  s.bytes_per_frame_max = *std::max_element(bytes.begin(), bytes.end());
  s.bytes_per_frame_median = LowerMedian(bytes);
  return s;
}

std::vector<SiteStats> SitesInRange(const CallSiteIndex& index, FrameRange range, uint64_t frames_in_range) {
  std::vector<SiteStats> out;
  for (const SiteHistory& site : index.sites()) {
    SiteStats s = SummarizeSite(site, range, frames_in_range);
    if (s.allocations > 0) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const SiteStats& a, const SiteStats& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.allocations != b.allocations) return a.allocations > b.allocations;
    return a.stack_id < b.stack_id;
  });
  return out;
}

std::vector<SiteStats> FindHiddenSites(const CallSiteIndex& index, FrameRange range, uint64_t frames_in_range,
                                       double min_fraction) {
  return FindHiddenSites(index, std::vector<FrameRange>{range}, frames_in_range, min_fraction);
}

std::vector<SiteStats> FindHiddenSites(const CallSiteIndex& index, const std::vector<FrameRange>& ranges,
                                       uint64_t frames_in_range, double min_fraction) {
  std::vector<SiteStats> out;
  // The epsilon keeps "exactly half" (0.5 * 10) from failing on rounding.
  const double needed = min_fraction * static_cast<double>(frames_in_range) - 1e-9;
  for (const SiteHistory& site : index.sites()) {
    SiteStats s = SummarizeSite(site, ranges, frames_in_range);
    if (s.frames_with_allocations > 0 && s.frames_with_allocations >= needed) out.push_back(s);
  }
  // The most allocations over the judged frames first: what each costs the
  // frames (a site in 66 % of them making 76 a frame goes before one in
  // every frame making 2).
  std::sort(out.begin(), out.end(), [](const SiteStats& a, const SiteStats& b) {
    if (a.allocations != b.allocations) return a.allocations > b.allocations;
    if (a.frames_with_allocations != b.frames_with_allocations)
      return a.frames_with_allocations > b.frames_with_allocations;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.stack_id < b.stack_id;
  });
  return out;
}

}  // namespace memframe::analysis
