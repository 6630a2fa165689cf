#include "memframe/analysis/size_histogram.h"

#include <algorithm>
#include <bit>

#include "memframe/analysis/frame_stats.h"

namespace memframe::analysis {

int SizeBin(uint64_t size) { return std::bit_width(size); }

uint64_t SizeBinMin(int bin) { return bin <= 0 ? 0 : uint64_t{1} << (bin - 1); }

uint64_t SizeBinMax(int bin) {
  if (bin <= 0) return 0;
  if (bin >= 64) return UINT64_MAX;
  return (uint64_t{1} << bin) - 1;
}

SizeHistogramIndex SizeHistogramIndex::Build(const Stream& stream) {
  // Dense per frame while building: events are in tick order, and threads
  // straddling a frame boundary make frame numbers only almost sorted.
  std::vector<std::array<SizeBinTotals, kSizeBins>> dense;
  for (const Event& e : stream.events) {
    if (e.kind() != EventKind::kAlloc) continue;
    // Same clamp as FrameStatsBuilder: a corrupt frame number must not make
    // us allocate gigabytes.
    uint32_t frame = std::min(e.frame, kMaxFrames - 1);
    if (frame >= dense.size()) dense.resize(frame + 1);
    SizeBinTotals& t = dense[frame][SizeBin(e.size)];
    t.allocations++;
    t.bytes += e.size;
  }
  SizeHistogramIndex index;
  index.frame_begin_.reserve(dense.size() + 1);
  for (const auto& bins : dense) {
    index.frame_begin_.push_back(static_cast<uint32_t>(index.entries_.size()));
    for (int b = 0; b < kSizeBins; ++b) {
      if (bins[b].allocations) index.entries_.push_back({static_cast<uint8_t>(b), bins[b]});
    }
  }
  index.frame_begin_.push_back(static_cast<uint32_t>(index.entries_.size()));
  return index;
}

SizeHistogram SizeHistogramIndex::Range(FrameRange range) const {
  SizeHistogram h;
  uint32_t frames = frame_count();
  if (frames == 0 || range.from > range.to || range.from >= frames) return h;
  uint32_t to = std::min(range.to, frames - 1);
  for (uint32_t i = frame_begin_[range.from]; i < frame_begin_[to + 1]; ++i) {
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
