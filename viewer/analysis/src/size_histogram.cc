#include "memframe/analysis/size_histogram.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace memframe::analysis {

int SizeBin(uint64_t size) { return std::bit_width(size); }

uint64_t SizeBinMin(int bin) { return bin <= 0 ? 0 : uint64_t{1} << (bin - 1); }

uint64_t SizeBinMax(int bin) {
  if (bin <= 0) return 0;
  if (bin >= 64) return UINT64_MAX;
  return (uint64_t{1} << bin) - 1;
}

SizeHistogramIndex SizeHistogramIndex::Build(const Stream& stream) { return Build(stream, nullptr); }

SizeHistogramIndex SizeHistogramIndex::Build(const Stream& stream, const std::function<bool(uint32_t)>& keep) {
  std::unordered_map<uint32_t, bool> kept;  // by stack id, when `keep` is given
  // All bins of a frame while building: events are in tick order, and
  // threads straddling a frame boundary make frame numbers only almost
  // sorted.
  FrameRows<std::array<SizeBinTotals, kSizeBins>> per_frame;
  for (const Event& e : stream.events) {
    if (e.kind() != EventKind::kAlloc) continue;
    if (keep) {
      auto [it, added] = kept.try_emplace(e.stack_id, false);
      if (added) it->second = keep(e.stack_id);
      if (!it->second) continue;
    }
    SizeBinTotals& t = per_frame.At(e.frame)[SizeBin(e.size)];
    t.allocations++;
    t.bytes += e.size;
  }
  SizeHistogramIndex index;
  auto rows = per_frame.TakeSorted();
  index.frames_.reserve(rows.size());
  index.frame_begin_.reserve(rows.size() + 1);
  for (const auto& [frame, bins] : rows) {
    index.frames_.push_back(frame);
    index.frame_begin_.push_back(index.entries_.size());
    for (int b = 0; b < kSizeBins; ++b) {
      if (bins[b].allocations) index.entries_.push_back({static_cast<uint8_t>(b), bins[b]});
    }
  }
  index.frame_begin_.push_back(index.entries_.size());
  return index;
}

SizeHistogram SizeHistogramIndex::Range(FrameRange range) const {
  SizeHistogram h;
  if (range.from > range.to) return h;
  size_t first = static_cast<size_t>(std::lower_bound(frames_.begin(), frames_.end(), range.from) - frames_.begin());
  size_t end = static_cast<size_t>(std::upper_bound(frames_.begin(), frames_.end(), range.to) - frames_.begin());
  if (first >= end) return h;
  for (uint64_t i = frame_begin_[first]; i < frame_begin_[end]; ++i) {
    const Entry& e = entries_[i];
    h.bins[e.bin].allocations += e.totals.allocations;
    h.bins[e.bin].bytes += e.totals.bytes;
    h.allocations += e.totals.allocations;
    h.bytes += e.totals.bytes;
    h.first_bin = std::min<int>(h.first_bin, e.bin);
    h.last_bin = std::max<int>(h.last_bin, e.bin);
  }
  return h;
}

}  // namespace memframe::analysis
