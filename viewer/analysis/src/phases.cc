#include "memframe/analysis/phases.h"

#include <algorithm>
#include <iterator>

namespace memframe::analysis {

namespace {

// The frames report's spike threshold (frame_stats.h) with a wider margin,
// a ratio and a floor: what a load allocates, not what a busy frame does.
uint64_t HeavyThreshold(const std::vector<uint64_t>& values) {
  SpikeThreshold t = ComputeSpikeThreshold(values);
  uint64_t scale = std::max<uint64_t>(t.mad, t.median / 10);
  return std::max({t.median + kHeavyScale * scale, kHeavyRatio * t.median, kHeavyFloorBytes});
}

// Live-heap growth in row i (0 when it shrank).
uint64_t Growth(const std::vector<FrameStats>& rows, size_t i) {
  uint64_t before = i ? rows[i - 1].live_bytes : 0;
  return rows[i].live_bytes > before ? rows[i].live_bytes - before : 0;
}

Phase MakePhase(PhaseKind kind, const std::vector<FrameStats>& rows, size_t first, size_t last) {
  Phase p;
  p.kind = kind;
  p.frames = {rows[first].frame, rows[last].frame};
  for (size_t i = first; i <= last; ++i) {
    p.allocations += rows[i].allocations;
    p.bytes_allocated += rows[i].bytes_allocated;
    p.bytes_freed += rows[i].bytes_freed;
  }
  p.frame_before = rows[first ? first - 1 : 0].frame;
  p.live_before = first ? rows[first - 1].live_bytes : 0;
  p.live_after = rows[last].live_bytes;
  return p;
}

}  // namespace

std::vector<Phase> FindPhases(const FrameTable& table) {
  const std::vector<FrameStats>& rows = table.frames;
  std::vector<Phase> phases;
  if (rows.empty()) return phases;
  // Ended frames are judged; frames after the last ended one are the teardown.
  size_t ended = rows.size();
  if (table.frames_rendered) ended = table.LowerBound(table.last_complete_frame + 1);
  if (ended == 0) ended = rows.size();

  std::vector<bool> heavy(ended, false), spike(ended, false);
  if (ended >= kMinFramesForSpikes) {
    std::vector<uint64_t> bytes, growth;
    for (size_t i = 0; i < ended; ++i) {
      bytes.push_back(rows[i].bytes_allocated);
      growth.push_back(Growth(rows, i));
    }
    const uint64_t bytes_limit = HeavyThreshold(bytes), growth_limit = HeavyThreshold(growth);
    const uint64_t bytes_spike = std::max(ComputeSpikeThreshold(bytes).threshold, kNeighbourFloorBytes);
    const uint64_t growth_spike = std::max(ComputeSpikeThreshold(growth).threshold, kNeighbourFloorBytes);
    for (size_t i = 0; i < ended; ++i) {
      const uint64_t live_before = i ? rows[i - 1].live_bytes : 0;
      heavy[i] = bytes[i] > bytes_limit || growth[i] > std::max(growth_limit, live_before / kHeavyGrowthDivisor);
      spike[i] = bytes[i] > bytes_spike || growth[i] > growth_spike;
    }
  }
  heavy[0] = true;  // everything before the first present
  auto near = [&](size_t a, size_t b) { return rows[b].frame - rows[a].frame <= kHeavyGap + 1; };

  // Runs of heavy frames, merged across gaps of up to kHeavyGap frames,
  // each widened by the spikes right next to it.
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < ended; ++i) {
    if (!heavy[i]) continue;
    size_t first = i;
    while (first > 0 && spike[first - 1] && near(first - 1, i)) --first;
    if (!runs.empty() && (first <= runs.back().second || near(runs.back().second, first))) {
      runs.back().second = i;
    } else {
      runs.push_back({first, i});
    }
  }
  for (auto& [first, last] : runs) {
    size_t end = last;
    while (end + 1 < ended && spike[end + 1] && !heavy[end + 1] && near(last, end + 1)) ++end;
    last = end;
  }
  size_t next = 0;  // first row not yet in a phase
  for (size_t r = 0; r < runs.size(); ++r) {
    auto [first, last] = runs[r];
    if (r == 0) {  // it holds row 0 (heavy by definition)
      phases.push_back(MakePhase(PhaseKind::kStartup, rows, 0, last));
      next = last + 1;
      continue;
    }
    if (first > next) phases.push_back(MakePhase(PhaseKind::kSteady, rows, next, first - 1));
    phases.push_back(MakePhase(PhaseKind::kLoad, rows, first, last));
    next = last + 1;
  }
  if (next < ended) phases.push_back(MakePhase(PhaseKind::kSteady, rows, next, ended - 1));
  if (ended < rows.size()) phases.push_back(MakePhase(PhaseKind::kTeardown, rows, ended, rows.size() - 1));
  return phases;
}

const Phase* LargestLoad(const std::vector<Phase>& phases) {
  const Phase* best = nullptr;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::kLoad && (!best || p.bytes_allocated > best->bytes_allocated)) best = &p;
  return best;
}

std::optional<std::pair<uint64_t, uint64_t>> LargestLoadDiffFrames(const FrameTable& table) {
  const std::vector<Phase> phases = FindPhases(table);
  const Phase* load = LargestLoad(phases);
  if (!load) return std::nullopt;
  return std::make_pair(load->frame_before, load->frames.to);
}

std::vector<FrameRange> SteadyRanges(const std::vector<Phase>& phases) {
  std::vector<FrameRange> ranges;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::kSteady) ranges.push_back(p.frames);
  return ranges;
}

JudgedFrames JudgeFrames(const FrameTable& table, FrameRange within, bool all_frames) {
  JudgedFrames judged;
  judged.all_frames_asked = all_frames;
  if (!all_frames) {
    for (FrameRange r : SteadyRanges(FindPhases(table))) {
      r.from = std::max(r.from, within.from);
      r.to = std::min(r.to, within.to);
      if (r.from > r.to) continue;
      judged.ranges.push_back(r);
      judged.count += table.CountIn(r);
    }
    judged.steady_only = judged.count > 0;
  }
  if (!judged.steady_only) {
    judged.ranges = {within};
    judged.count = table.CountIn(within);
  }
  return judged;
}

std::string JudgedRangesText(const JudgedFrames& judged, size_t shown) {
  std::string text;
  for (size_t i = 0; i < judged.ranges.size() && i < shown; ++i) {
    const FrameRange& r = judged.ranges[i];
    if (i) text += ", ";
    text += std::to_string(r.from);
    if (r.to != r.from) text += ".." + std::to_string(r.to);
  }
  if (judged.ranges.size() > shown) text += ", ... (" + std::to_string(judged.ranges.size()) + " stretches)";
  return text;
}

bool InRanges(const std::vector<FrameRange>& ranges, uint64_t frame) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), frame,
                             [](uint64_t f, const FrameRange& r) { return f < r.from; });
  return it != ranges.begin() && std::prev(it)->Contains(frame);
}

const char* PhaseKindName(PhaseKind kind) {
  switch (kind) {
    case PhaseKind::kStartup: return "start-up";
    case PhaseKind::kLoad: return "load";
    case PhaseKind::kSteady: return "steady";
    case PhaseKind::kTeardown: return "teardown";
  }
  return "steady";
}

}  // namespace memframe::analysis
