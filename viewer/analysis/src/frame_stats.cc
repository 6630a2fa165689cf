#include "memframe/analysis/frame_stats.h"

#include <algorithm>

#include "memframe/analysis/phases.h"

namespace memframe::analysis {

namespace {

uint64_t Median(std::vector<uint64_t> values) {
  // The lower middle for even counts: always a value some frame really had.
  auto mid = values.begin() + static_cast<long>((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace

SpikeThreshold ComputeSpikeThreshold(const std::vector<uint64_t>& values) {
  SpikeThreshold t;
  t.median = Median(values);
  std::vector<uint64_t> deviations;
  deviations.reserve(values.size());
  for (uint64_t v : values) deviations.push_back(v > t.median ? v - t.median : t.median - v);
  t.mad = Median(std::move(deviations));
  uint64_t scale = std::max<uint64_t>({t.mad, t.median / 10, 1});
  // Tukey's far-out fence: an extreme value whatever the spread's shape (a
  // level whose frames swing with what is on screen has a wide one).
  std::vector<uint64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const uint64_t q1 = sorted[sorted.size() / 4], q3 = sorted[std::min(sorted.size() - 1, sorted.size() * 3 / 4)];
  const uint64_t far_out = q3 + kSpikeScale * (q3 - q1);
  t.threshold = std::max({t.median + kSpikeScale * scale, far_out, kSpikeRatio * t.median});
  return t;
}

const FrameStats* FrameTable::Find(uint64_t frame) const {
  size_t row = LowerBound(frame);
  return row < frames.size() && frames[row].frame == frame ? &frames[row] : nullptr;
}

size_t FrameTable::LowerBound(uint64_t frame) const {
  auto it = std::lower_bound(frames.begin(), frames.end(), frame,
                             [](const FrameStats& f, uint64_t n) { return f.frame < n; });
  return static_cast<size_t>(it - frames.begin());
}

std::pair<size_t, size_t> FrameTable::RowsIn(FrameRange range) const {
  if (range.to < range.from) return {0, 0};
  return {LowerBound(range.from), range.to == UINT64_MAX ? frames.size() : LowerBound(range.to + 1)};
}

uint64_t FrameTable::CountIn(FrameRange range) const {
  auto [first, end] = RowsIn(range);
  return end - first;
}

FrameRange FrameTable::All() const {
  if (frames.empty()) return {};
  return {frames.front().frame, frames.back().frame};
}

std::string DescribeFrames(const FrameTable& table) {
  FrameRange all = table.All();
  if (table.frames.empty() || table.frames.size() == all.size())
    return "frames " + std::to_string(all.from) + ".." + std::to_string(all.to);
  return std::to_string(table.frames.size()) + " frames between " + std::to_string(all.from) + " and " +
         std::to_string(all.to);
}

FrameRange FrameTable::Complete() const {
  FrameRange all = All();
  if (frames_rendered == 0) return all;
  return {all.from, std::max(all.from, last_complete_frame)};
}

void FrameStatsBuilder::AddTime(Accumulator& a, const Event& e) {
  a.time_ticks += e.duration_ticks;
  a.slowest_ticks = std::max<uint64_t>(a.slowest_ticks, e.duration_ticks);
}

void FrameStatsBuilder::TouchPeak(Accumulator& a, uint64_t live_before, uint64_t live_after) {
  uint64_t high = std::max(live_before, live_after);
  a.stats.peak_live_bytes = a.touched ? std::max(a.stats.peak_live_bytes, high) : high;
  a.touched = true;
}

void FrameStatsBuilder::OnAlloc(const Event& e, uint64_t live_before, uint64_t live_after) {
  Accumulator& a = At(e.frame);
  a.stats.allocations++;
  a.stats.bytes_allocated += e.size;
  AddTime(a, e);
  TouchPeak(a, live_before, live_after);
}

void FrameStatsBuilder::OnFree(const Event& e, uint64_t freed_bytes, uint64_t live_before, uint64_t live_after) {
  Accumulator& a = At(e.frame);
  a.stats.frees++;
  a.stats.bytes_freed += freed_bytes;
  if (e.kind() == EventKind::kFree) AddTime(a, e);  // a replaced block's "free" took no time of its own
  TouchPeak(a, live_before, live_after);
}

void FrameStatsBuilder::OnUnknownFree(const Event& e) { AddTime(At(e.frame), e); }

void FrameStatsBuilder::OnFrameEnd(const Event& e) {
  ++frames_rendered_;
  At(e.size).stats.ended = true;
  last_marker_ = e.address;
  has_marker_ = true;
}

FrameTable FrameStatsBuilder::Finish(const Clock& clock, const std::unordered_map<uint32_t, std::string>& markers,
                                     bool attached) {
  FrameTable table;
  table.attached = attached;
  table.frames_rendered = frames_rendered_;
  if (has_marker_) {
    auto it = markers.find(static_cast<uint32_t>(last_marker_));
    if (it != markers.end() && last_marker_ <= UINT32_MAX) table.frame_source = it->second;
  }
  auto rows = frames_.TakeSorted();
  table.frames.reserve(rows.size());
  uint64_t live = 0;
  for (auto& [frame, a] : rows) {
    FrameStats s = a.stats;
    s.frame = frame;
    uint64_t start = live;
    live = live + s.bytes_allocated - s.bytes_freed;
    s.live_bytes = live;
    s.peak_live_bytes = std::max({a.touched ? s.peak_live_bytes : 0, start, live});
    s.alloc_time_ns = clock.DurationNs(a.time_ticks);
    s.slowest_alloc_ns = clock.DurationNs(a.slowest_ticks);
    table.frames.push_back(s);
  }
  rows = {};
  // Frames end in order, so the complete ones are those up to the highest
  // frame that saw a FRAME_END.
  for (size_t i = table.frames.size(); i-- > 0;) {
    if (table.frames[i].ended) {
      table.last_complete_frame = table.frames[i].frame;
      break;
    }
  }
  table.phases = DetectPhases(table, attached);
  MarkPhaseSpikes(table, table.phases);
  return table;
}

}  // namespace memframe::analysis
