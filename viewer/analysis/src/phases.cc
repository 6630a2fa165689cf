#include "memframe/analysis/phases.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "plateaus.h"

namespace memframe::analysis {

namespace {

PhaseSeries ReadSeries(const std::vector<FrameStats>& rows, size_t ended) {
  PhaseSeries s;
  for (size_t i = 0; i < ended; ++i) {
    s.bytes.push_back(rows[i].bytes_allocated);
    s.allocations.push_back(rows[i].allocations);
    s.live.push_back(rows[i].live_bytes);
    s.growth.push_back(rows[i].live_bytes > s.LiveBefore(i) ? rows[i].live_bytes - s.LiveBefore(i) : 0);
  }
  return s;
}

// The spike rule's median and MAD of values[from, to), or none when empty.
std::optional<SpikeThreshold> WindowThreshold(const std::vector<uint64_t>& values, size_t from, size_t to) {
  if (from >= to) return std::nullopt;
  return ComputeSpikeThreshold(std::vector<uint64_t>(values.begin() + static_cast<long>(from),
                                                     values.begin() + static_cast<long>(to)));
}

// The baseline row i is judged against: of the kBaselineFrames rows before
// it and those after it, the side with the higher median (a frame opening a
// busier plateau belongs to that plateau). Row 0 (everything before the
// first present) is no baseline, and a side of fewer than a third of
// kBaselineFrames rows counts only when the other has none: a frame right
// after start-up is not judged against start-up's last frame alone.
SpikeThreshold SideBaseline(const std::vector<uint64_t>& values, size_t i) {
  const size_t n = values.size(), enough = kBaselineFrames / 3;
  auto left = WindowThreshold(values, std::max<size_t>(1, i > kBaselineFrames ? i - kBaselineFrames : 0), i);
  auto right = WindowThreshold(values, i + 1, std::min(n, i + 1 + kBaselineFrames));
  const size_t left_rows = i > 1 ? std::min(i - 1, kBaselineFrames) : 0;
  const size_t right_rows = std::min(n - i - 1, kBaselineFrames);
  if (left && right && left_rows < enough && right_rows >= enough) left.reset();
  if (left && right && right_rows < enough && left_rows >= enough) right.reset();
  if (!left && !right) return SpikeThreshold{};
  if (!left) return *right;
  if (!right) return *left;
  return right->median > left->median ? *right : *left;
}

uint64_t Scale(const SpikeThreshold& t) { return std::max<uint64_t>({t.mad, t.median / 10, 1}); }

// Far above its baseline: the margin, the ratio and the floor.
bool FarAbove(uint64_t value, const SpikeThreshold& base, uint64_t floor) {
  return value >= floor && value > base.median + kHeavyScale * Scale(base) && value > kHeavyRatio * base.median;
}

// Above its baseline by the spike rule and at least `floor`.
bool Above(uint64_t value, const SpikeThreshold& base, uint64_t floor) {
  return value >= floor && value > base.median + kSpikeScale * Scale(base);
}

uint64_t LoadLimit(uint64_t live_before) { return std::max(kLoadFloorBytes, live_before / kLoadLiveDivisor); }
uint64_t UnloadLimit(uint64_t live_before) { return std::max(kLoadFloorBytes, live_before / kUnloadLiveDivisor); }

struct FrameVerdict {
  bool heavy = false;     // allocates far above its baseline
  bool grows = false;     // grows the live heap far above its baseline
  bool drops = false;     // shrinks the live heap by the unload limit
  bool elevated = false;  // above its baseline by the spike rule: joins a run next to it
  bool burst = false;     // makes kBurstRatio times the allocations of the frames around it
  bool transition = false;  // far above both sides, which differ: from one screen to another
};

// Row i makes kTransitionRatio times the allocations of the frames on either
// side, and the frames before it and after it are at different levels: the
// frame that takes the game from one screen to another, building the new one
// (a level built in one frame in memory it mostly frees again).
bool IsTransition(const std::vector<uint64_t>& a, size_t i) {
  if (i == 0 || a[i] < kHeavyFloorAllocations) return false;
  const size_t from = std::max<size_t>(1, i > kBaselineFrames ? i - kBaselineFrames : 0);
  const size_t to = std::min(a.size(), i + 1 + kBaselineFrames);
  if (i - from < kShortPlateauFrames || to - (i + 1) < kShortPlateauFrames) return false;
  const uint64_t higher = std::max(MedianOfRows(a, from, i), MedianOfRows(a, i + 1, to));
  if (a[i] <= kTransitionRatio * higher) return false;
  // The sides without row i.
  std::vector<uint64_t> sides(a.begin() + static_cast<long>(from), a.begin() + static_cast<long>(to));
  sides.erase(sides.begin() + static_cast<long>(i - from));
  return LevelsDiffer(sides, 0, i - from, sides.size());
}

std::vector<FrameVerdict> JudgeEachFrame(const PhaseSeries& s) {
  const size_t n = s.bytes.size();
  std::vector<FrameVerdict> v(n);
  for (size_t i = 0; i < n; ++i) {
    const SpikeThreshold bytes = SideBaseline(s.bytes, i), allocations = SideBaseline(s.allocations, i);
    const SpikeThreshold growth = SideBaseline(s.growth, i);
    const uint64_t live_before = s.LiveBefore(i);
    v[i].heavy = FarAbove(s.bytes[i], bytes, kHeavyFloorBytes) ||
                 FarAbove(s.allocations[i], allocations, kHeavyFloorAllocations);
    v[i].grows = s.growth[i] > LoadLimit(live_before) && FarAbove(s.growth[i], growth, 0);
    v[i].drops = s.live[i] < live_before && live_before - s.live[i] >= UnloadLimit(live_before);
    v[i].elevated = Above(s.bytes[i], bytes, kNeighbourFloorBytes) || Above(s.growth[i], growth, kNeighbourFloorBytes);
    v[i].burst = FarAbove(s.allocations[i], allocations, kHeavyFloorAllocations) &&
                 s.allocations[i] > kBurstRatio * allocations.median;
    v[i].transition = IsTransition(s.allocations, i);
  }
  return v;
}

// Candidate rows no more than kHeavyGap frames apart form one run, widened
// by the elevated rows next to it.
std::vector<PhaseRun> FindRuns(const std::vector<FrameStats>& rows, const std::vector<FrameVerdict>& v) {
  auto near = [&](size_t a, size_t b) { return rows[b].frame - rows[a].frame <= kHeavyGap + 1; };
  auto candidate = [&](size_t i) { return i == 0 || v[i].heavy || v[i].grows || v[i].drops || v[i].transition; };
  std::vector<PhaseRun> runs;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!candidate(i)) continue;
    size_t first = i;
    while (first > 0 && v[first - 1].elevated && near(first - 1, i)) --first;
    if (!runs.empty() && (first <= runs.back().last || near(runs.back().last, first))) {
      runs.back().last = i;
    } else {
      runs.push_back({first, i});
    }
  }
  for (PhaseRun& r : runs) {
    const size_t last = r.last;
    while (r.last + 1 < v.size() && v[r.last + 1].elevated && !candidate(r.last + 1) && near(last, r.last + 1))
      ++r.last;
    for (size_t i = r.first; i <= r.last; ++i) {
      r.heavy += v[i].heavy;
      r.burst = r.burst || v[i].burst;
      r.transition = r.transition || v[i].transition;
    }
  }
  return runs;
}

// What a run is, by what it left once the frames after it settled.
PhaseKind ClassifyRun(const PhaseRun& r, const PhaseSeries& s, bool attached) {
  if (r.first == 0) return attached ? PhaseKind::kAttached : PhaseKind::kStartup;
  const size_t n = s.live.size();
  const size_t settled = std::min(n - 1, r.last + kSettleFrames);
  uint64_t low = UINT64_MAX, high = 0;
  for (size_t i = r.last; i <= settled; ++i) {
    low = std::min(low, s.live[i]);
    high = std::max(high, s.live[i]);
  }
  const uint64_t before = s.LiveBefore(r.first);
  // What its neighbours grow anyway over as many frames (a game that keeps a
  // little more every frame is no load for it).
  const uint64_t drift = SideBaseline(s.growth, r.first).median * (settled - r.first + 1);
  if (low > before && low - before >= LoadLimit(before) + drift) return PhaseKind::kLoad;
  if (high < before && before - high >= UnloadLimit(before)) return PhaseKind::kUnload;
  if (r.heavy >= kSustainedFrames || r.burst || r.transition) return PhaseKind::kLoad;
  return PhaseKind::kSteady;
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

// Row i's figure is kSpikeRatio times the median of the kSpikeNeighbourFrames
// rows before it and of those after it within rows [first, end), whichever
// is higher: a frame, not a stretch (ETR's view turning for 22 frames of a
// race at twice its usual rate), nor the first or last frame of one.
// [first, end) is the frame's steady phase and the steady phases beside it.
bool StandsOutFromNeighbours(const std::vector<FrameStats>& rows, size_t first, size_t end, size_t i,
                             uint64_t FrameStats::*field) {
  auto side_median = [&](size_t from, size_t to) -> uint64_t {
    std::vector<uint64_t> values;
    for (size_t j = from; j < to; ++j) values.push_back(rows[j].*field);
    return values.empty() ? 0 : MedianOfRows(values, 0, values.size());
  };
  const uint64_t before = side_median(i > first + kSpikeNeighbourFrames ? i - kSpikeNeighbourFrames : first, i);
  const uint64_t after = side_median(i + 1, std::min(end, i + 1 + kSpikeNeighbourFrames));
  return rows[i].*field > kSpikeRatio * std::max(before, after);
}

void NumberPhases(std::vector<Phase>& phases) {
  uint32_t seen[6] = {};
  for (Phase& p : phases) p.ordinal = ++seen[static_cast<int>(p.kind)];
}

}  // namespace

bool StandsFarAbove(const std::vector<uint64_t>& values, size_t i, uint64_t floor) {
  return FarAbove(values[i], SideBaseline(values, i), floor);
}

std::vector<Phase> DetectPhases(const FrameTable& table, bool attached) {
  const std::vector<FrameStats>& rows = table.frames;
  std::vector<Phase> phases;
  if (rows.empty()) return phases;
  const PhaseKind first_kind = attached ? PhaseKind::kAttached : PhaseKind::kStartup;
  // Ended frames are judged; frames after the last ended one are the teardown.
  size_t ended = rows.size();
  if (table.frames_rendered) ended = table.LowerBound(table.last_complete_frame + 1);
  if (ended == 0) ended = rows.size();

  std::vector<PhaseRun> events;  // start-up, loads and unloads, in order
  const PhaseSeries s = ReadSeries(rows, ended);
  if (ended >= kMinFramesForSpikes) {
    for (PhaseRun& r : FindRuns(rows, JudgeEachFrame(s))) {
      r.kind = ClassifyRun(r, s, attached);
      if (r.kind != PhaseKind::kSteady) events.push_back(r);
    }
  }
  if (events.empty() || events.front().first != 0) events.insert(events.begin(), PhaseRun{0, 0, 1, false, false, first_kind});

  // Steady play between the events, cut into plateaus; a plateau that is
  // really a long load (plateaus.h) joins the events.
  std::vector<PhaseRun> all;
  auto add_steady = [&](size_t first, size_t last) {
    for (const PhaseRun& p : CutPlateaus(s, first, last)) all.push_back(p);
  };
  for (size_t e = 0; e < events.size(); ++e) {
    const size_t gap_from = e ? events[e - 1].last + 1 : 0;
    if (events[e].first > gap_from) add_steady(gap_from, events[e].first - 1);
    all.push_back(events[e]);
  }
  if (events.back().last + 1 < ended) add_steady(events.back().last + 1, ended - 1);
  // A long load right after start-up is part of start-up.
  std::vector<PhaseRun> merged;
  for (const PhaseRun& r : all) {
    const bool joins_startup = !merged.empty() && merged.back().kind == first_kind && r.kind == PhaseKind::kLoad &&
                               merged.back().last + 1 == r.first;
    if (joins_startup) {
      merged.back().last = r.last;
    } else {
      merged.push_back(r);
    }
  }
  for (const PhaseRun& r : merged) phases.push_back(MakePhase(r.kind, rows, r.first, r.last));
  if (ended < rows.size()) phases.push_back(MakePhase(PhaseKind::kTeardown, rows, ended, rows.size() - 1));
  NumberPhases(phases);
  return phases;
}

void MarkPhaseSpikes(FrameTable& table, std::vector<Phase>& phases) {
  std::vector<FrameStats>& rows = table.frames;
  for (FrameStats& f : rows) f.spike = f.allocations_spike = f.bytes_spike = false;
  for (size_t n = 0; n < phases.size(); ++n) {
    Phase& p = phases[n];
    if (p.kind != PhaseKind::kSteady) continue;
    auto [first, end] = table.RowsIn(p.frames);
    // A frame's neighbours reach into the steady phase next to its own: the
    // last frames before play begins (Neverball's "ready, go" at twice its
    // intro's rate, a frame before play's 1,400) are the way into it, not
    // frames that stand out. A load next to it is no baseline.
    size_t around_first = first, around_end = end;
    if (n > 0 && phases[n - 1].kind == PhaseKind::kSteady) around_first = table.RowsIn(phases[n - 1].frames).first;
    if (n + 1 < phases.size() && phases[n + 1].kind == PhaseKind::kSteady)
      around_end = table.RowsIn(phases[n + 1].frames).second;
    if (end - first < kMinFramesForSpikes) continue;
    auto column = [&](size_t from, size_t to, uint64_t FrameStats::*field, uint64_t floor) {
      std::vector<uint64_t> values;
      for (size_t i = from; i < to; ++i) values.push_back(rows[i].*field);
      SpikeThreshold t = ComputeSpikeThreshold(values);
      t.threshold = std::max(t.threshold, t.median + floor);
      return t;
    };
    p.allocation_spike = column(first, end, &FrameStats::allocations, kSpikeFloorAllocations);
    p.bytes_spike = column(first, end, &FrameStats::bytes_allocated, kSpikeFloorBytes);
    const size_t count = end - first;
    const bool local = SpikesJudgedLocally(count);
    const size_t blocks = local ? (count + kSpikeBlock - 1) / kSpikeBlock : 1;
    for (size_t b = 0; b < blocks; ++b) {
      SpikeThreshold allocations = p.allocation_spike, bytes = p.bytes_spike;
      if (local) {
        const size_t from = first + (b == 0 ? 0 : (b - 1) * kSpikeBlock);
        const size_t to = std::min(end, first + (b + 2) * kSpikeBlock);
        allocations = column(from, to, &FrameStats::allocations, kSpikeFloorAllocations);
        bytes = column(from, to, &FrameStats::bytes_allocated, kSpikeFloorBytes);
      }
      const size_t to = local ? std::min(end, first + (b + 1) * kSpikeBlock) : end;
      for (size_t i = first + b * kSpikeBlock; i < to; ++i) {
        FrameStats& f = rows[i];
        f.allocations_spike = f.allocations > allocations.threshold &&
                              StandsOutFromNeighbours(rows, around_first, around_end, i, &FrameStats::allocations);
        f.bytes_spike = f.bytes_allocated > bytes.threshold &&
                        StandsOutFromNeighbours(rows, around_first, around_end, i, &FrameStats::bytes_allocated);
        f.spike = f.allocations_spike || f.bytes_spike;
        p.spikes += f.spike;
      }
    }
  }
}

const Phase* LargestLoad(const std::vector<Phase>& phases) {
  const Phase* best = nullptr;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::kLoad && (!best || p.bytes_allocated > best->bytes_allocated)) best = &p;
  return best;
}

std::optional<std::pair<uint64_t, uint64_t>> LargestLoadDiffFrames(const FrameTable& table) {
  const Phase* load = LargestLoad(FindPhases(table));
  if (!load) return std::nullopt;
  return std::make_pair(load->frame_before, load->frames.to);
}

std::vector<FrameRange> SteadyRanges(const std::vector<Phase>& phases) {
  std::vector<FrameRange> ranges;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::kSteady) ranges.push_back(p.frames);
  return ranges;
}

const Phase* FindPhaseByName(const std::vector<Phase>& phases, const std::string& text, std::string* error) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const size_t position = text.size() > 9 ? 0 : std::stoul(text);
    if (position >= 1 && position <= phases.size()) return &phases[position - 1];
  }
  std::string wanted;
  for (char c : text)
    if (c != ' ' && c != '-' && c != '_') wanted += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string names;
  for (const Phase& p : phases) {
    std::string name;
    for (char c : PhaseName(p))
      if (c != ' ' && c != '-') name += c;
    const std::string kind_only = [&] {
      std::string k;
      for (const char* c = PhaseKindName(p.kind); *c; ++c)
        if (*c != '-') k += *c;
      return k;
    }();
    if (name == wanted || (p.ordinal == 1 && kind_only == wanted)) return &p;
    if (!names.empty()) names += ", ";
    names += PhaseName(p);
  }
  *error = "no phase \"" + text + "\" in the capture (its phases: " + (names.empty() ? "none" : names) +
           "; or a position 1.." + std::to_string(phases.size()) + ")";
  return nullptr;
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
    case PhaseKind::kAttached: return "attached";
    case PhaseKind::kLoad: return "load";
    case PhaseKind::kUnload: return "unload";
    case PhaseKind::kSteady: return "steady";
    case PhaseKind::kTeardown: return "teardown";
  }
  return "steady";
}

std::string PhaseName(const Phase& phase) {
  switch (phase.kind) {
    case PhaseKind::kStartup:
    case PhaseKind::kAttached:
    case PhaseKind::kTeardown: return PhaseKindName(phase.kind);
    default: return std::string(PhaseKindName(phase.kind)) + " " + std::to_string(phase.ordinal);
  }
}

}  // namespace memframe::analysis
