// Allocation sizes in power-of-two bins, per frame, so that the histogram of
// any frame range is a sum over a few entries instead of another pass over
// the events (the viewer re-asks it on every click in the timeline).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

// Bin 0 holds size 0; bin k (1..64) holds sizes [2^(k-1), 2^k). A 48-byte
// block is in bin 6, [32, 64).
constexpr int kSizeBins = 65;

int SizeBin(uint64_t size);
uint64_t SizeBinMin(int bin);  // smallest size in the bin
uint64_t SizeBinMax(int bin);  // largest size in the bin

struct SizeBinTotals {
  uint64_t allocations = 0;
  uint64_t bytes = 0;
};

struct SizeHistogram {
  std::array<SizeBinTotals, kSizeBins> bins{};
  uint64_t allocations = 0;
  uint64_t bytes = 0;
  // First and last bin with allocations; first > last when there are none.
  int first_bin = kSizeBins;
  int last_bin = -1;
};

class SizeHistogramIndex {
 public:
  // Every ALLOC event of the stream (realloc's ALLOC half included, as in
  // FrameStats::allocations).
  static SizeHistogramIndex Build(const Stream& stream);
  // Only the ALLOC events of the stacks `keep` accepts (asked once per
  // stack id): the histogram of some call sites, e.g. the module classes a
  // view keeps.
  static SizeHistogramIndex Build(const Stream& stream, const std::function<bool(uint32_t stack_id)>& keep);

  SizeHistogram Range(FrameRange range) const;
  // Frames with at least one allocation.
  size_t frame_count() const { return frames_.size(); }

 private:
  struct Entry {
    uint8_t bin = 0;
    SizeBinTotals totals;
  };
  // The frames with allocations, ascending; the entries of frames_[i] are
  // entries_[frame_begin_[i] .. frame_begin_[i+1]). Sparse both ways: a
  // frame allocates in a handful of bins, and frame numbers may have gaps.
  std::vector<Entry> entries_;
  std::vector<uint64_t> frames_;
  std::vector<uint64_t> frame_begin_;
};

}  // namespace memframe::analysis
