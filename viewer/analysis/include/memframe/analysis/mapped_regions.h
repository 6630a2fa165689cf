// Anonymous memory mappings (EVENT_MAP / EVENT_UNMAP) as the regions live at
// one time. munmap may release any range (part of a region, or several), so
// an UNMAP cuts its range out of whatever regions it overlaps; mremap comes
// as an UNMAP and a MAP carrying the realloc flag and needs nothing special.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

struct MappedRegion {
  uint64_t start = 0;
  uint64_t end = 0;  // one past the last byte
  uint32_t stack_id = 0;
  uint64_t frame = 0;  // frame of the MAP event
};

class MappedRegions {
 public:
  // Hears each piece an UNMAP (or a MAP over older regions) cuts away: the
  // region it was cut from (as it was before the cut) and how many bytes
  // went, so that a caller can say whose mapping shrank (live_series.h).
  using CutFn = std::function<void(const MappedRegion& region, uint64_t bytes)>;

  void Map(const Event& map, const CutFn& on_cut = {});
  void Unmap(uint64_t address, uint64_t size, const CutFn& on_cut = {});

  uint64_t mapped_bytes() const { return mapped_bytes_; }
  const std::map<uint64_t, MappedRegion>& regions() const { return regions_; }  // by start
  // The region holding `address`, or nullptr.
  const MappedRegion* Find(uint64_t address) const;

 private:
  std::map<uint64_t, MappedRegion> regions_;
  uint64_t mapped_bytes_ = 0;
};

}  // namespace memframe::analysis
