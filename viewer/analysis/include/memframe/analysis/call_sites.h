// Allocation call sites (one per interned stack) and how they allocate frame
// by frame, so that any range of frames can be summarised without another
// pass over the events. "Hidden" sites are those that allocate in most
// frames: the per-frame churn a game developer wants to find.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_range.h"

namespace memframe::analysis {

// What one site allocated in one frame (only frames with allocations).
struct SiteFrame {
  uint64_t frame = 0;
  uint32_t allocations = 0;
  uint64_t bytes = 0;
};

// Who allocated at a site: a thread (index into Stream::threads) and how
// often.
struct SiteThread {
  uint16_t thread = 0;
  uint64_t allocations = 0;
};

struct SiteHistory {
  uint32_t stack_id = 0;
  uint64_t allocations = 0;
  uint64_t bytes = 0;
  uint64_t size_min = 0;  // over the whole capture
  uint64_t size_max = 0;
  std::vector<SiteFrame> frames;  // sorted by frame, one entry per frame
  std::vector<SiteThread> threads;  // over the whole capture, in order of first allocation
};

// Adds `allocations` by `thread` to `threads`.
void AddSiteThread(std::vector<SiteThread>& threads, uint16_t thread, uint64_t allocations);

class CallSiteIndex {
 public:
  CallSiteIndex() = default;
  explicit CallSiteIndex(std::vector<SiteHistory> sites);
  const std::vector<SiteHistory>& sites() const { return sites_; }  // sorted by stack id
  const SiteHistory* Find(uint32_t stack_id) const;

 private:
  std::vector<SiteHistory> sites_;
};

class CallSiteBuilder {
 public:
  void OnAlloc(const Event& alloc);
  CallSiteIndex Finish();

 private:
  std::vector<SiteHistory> sites_;
  std::unordered_map<uint32_t, size_t> index_;  // stack id -> sites_ slot
};

// A site over a range of frames. The per-frame figures are taken over the
// frames in which the site allocated; medians are the lower middle value.
// `frames_in_range` is the number of the capture's frames in the range
// (FrameTable::CountIn), not of frame numbers: a capture's numbers may have
// gaps.
struct SiteStats {
  uint32_t stack_id = 0;
  uint64_t allocations = 0;
  uint64_t bytes = 0;
  uint64_t frames_with_allocations = 0;
  uint64_t frames_in_range = 0;
  uint64_t allocs_per_frame_min = 0, allocs_per_frame_max = 0, allocs_per_frame_median = 0;
  uint64_t bytes_per_frame_min = 0, bytes_per_frame_max = 0, bytes_per_frame_median = 0;
  uint64_t size_min = 0, size_max = 0;  // over the whole capture
};

SiteStats SummarizeSite(const SiteHistory& site, FrameRange range, uint64_t frames_in_range);
// The same over the union of `ranges` (ascending, disjoint): the steady
// frames a report judges (phases.h), `frames_in_range` being the frames in
// all of them.
SiteStats SummarizeSite(const SiteHistory& site, const std::vector<FrameRange>& ranges, uint64_t frames_in_range);

// Sites with at least one allocation in `range`, by bytes (then allocations)
// descending, then stack id.
std::vector<SiteStats> SitesInRange(const CallSiteIndex& index, FrameRange range, uint64_t frames_in_range);

// Sites that allocate in at least `min_fraction` of the `frames_in_range`
// frames of `range` (frames_with_allocations >= min_fraction *
// frames_in_range), ranked by frames with allocations, then allocations,
// then bytes (descending), then stack id.
std::vector<SiteStats> FindHiddenSites(const CallSiteIndex& index, FrameRange range, uint64_t frames_in_range,
                                       double min_fraction);
// The same over the union of `ranges` (ascending, disjoint).
std::vector<SiteStats> FindHiddenSites(const CallSiteIndex& index, const std::vector<FrameRange>& ranges,
                                       uint64_t frames_in_range, double min_fraction);

}  // namespace memframe::analysis
