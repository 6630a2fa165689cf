// Which call sites fill each size bin of a frame range: the histogram says
// "300 blocks of 32..63 bytes per frame", this says who made them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/size_histogram.h"

namespace memframe::analysis {

struct SizeBinSite {
  uint32_t stack_id = 0;
  uint64_t allocations = 0;
  uint64_t bytes = 0;
};

// Per bin (SizeBin numbering), the sites whose ALLOC events of frames in
// `range` fall in it, by allocations, then bytes (descending), then stack id.
// Summed over a bin, the sites give exactly SizeHistogramIndex::Range's bin.
using SizeBinSites = std::array<std::vector<SizeBinSite>, kSizeBins>;

SizeBinSites SitesBySizeBin(const Stream& stream, FrameRange range);

}  // namespace memframe::analysis
