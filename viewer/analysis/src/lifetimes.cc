#include "memframe/analysis/lifetimes.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "memframe/analysis/event_pass.h"
#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/phases.h"

namespace memframe::analysis {

namespace {

// Pass 1: per frame, the frees of blocks from earlier frames, the frames
// with markers, and the last ended frame.
class BoundaryPass : public EventPass {
 public:
  void OnEvent(const Event& e) override {
    // Every frame that occurs gets a row, so that frames without frees
    // count as 0 (the frame table's rows, frame_stats.h).
    uint64_t& old_frees = old_frees_.At(e.frame);
    switch (e.kind()) {
      case EventKind::kAlloc:
        alloc_frame_[e.address] = e.frame;
        break;
      case EventKind::kFree:
        if (auto it = alloc_frame_.find(e.address); it != alloc_frame_.end()) {
          if (it->second < e.frame) old_frees++;
          alloc_frame_.erase(it);
        }
        break;
      case EventKind::kMarker:
        markers_.insert(e.frame);
        break;
      case EventKind::kFrameEnd:
        old_frees_.At(e.size);
        ended_ = true;
        last_ended_ = std::max(last_ended_, e.size);
        break;
      default:
        break;
    }
  }

  // Boundaries: the markers, every frame of a load or an unload (the first
  // kMaxBoundaryFrames of a long one: a level streamed in over many frames
  // turns over its own blocks), the first frame of a steady phase that
  // follows another (a part of the game ended there without a load), and a
  // free burst: an ended frame whose frees of older blocks stand far above
  // the frames around it (the load rule, phases.h) and number at least
  // kBurstFloorBlocks (a small level freed whole at the end of play).
  void Finish(const std::vector<Phase>& phases, LifetimeReport* report) {
    report->has_teardown = ended_;
    report->last_ended_frame = last_ended_;
    std::unordered_set<uint64_t> boundaries = markers_;
    const Phase* previous = nullptr;
    for (const Phase& p : phases) {
      if (p.kind == PhaseKind::kLoad || p.kind == PhaseKind::kUnload) {
        for (uint64_t f = p.frames.from; f <= p.frames.to && f - p.frames.from < kMaxBoundaryFrames; ++f)
          boundaries.insert(f);
      } else if (p.kind == PhaseKind::kSteady && previous && previous->kind == PhaseKind::kSteady) {
        boundaries.insert(p.frames.from);
      }
      previous = &p;
    }
    auto rows = old_frees_.TakeSorted();
    std::vector<uint64_t> counts;
    for (const auto& [frame, frees] : rows)
      if (!ended_ || frame <= last_ended_) counts.push_back(frees);
    if (ended_ && counts.size() >= kMinFramesForSpikes)
      for (size_t i = 1; i < counts.size(); ++i)
        if (StandsFarAbove(counts, i, kBurstFloorBlocks)) boundaries.insert(rows[i].first);
    report->boundary_frames.assign(boundaries.begin(), boundaries.end());
    std::sort(report->boundary_frames.begin(), report->boundary_frames.end());
  }

 private:
  static constexpr uint64_t kMaxBoundaryFrames = 16;
  static constexpr uint64_t kBurstFloorBlocks = 64;
  std::unordered_map<uint64_t, uint64_t> alloc_frame_;  // live block address -> its frame
  FrameRows<uint64_t> old_frees_;  // per frame: frees of blocks from earlier frames
  std::unordered_set<uint64_t> markers_;
  bool ended_ = false;
  uint64_t last_ended_ = 0;
};

// Pass 2: per site, how its blocks lived and died.
class SiteLifetimePass : public EventPass {
 public:
  SiteLifetimePass(const LifetimeReport& report, const std::vector<FrameRange>& judged)
      : report_(report), judged_(judged) {
    boundaries_.insert(report.boundary_frames.begin(), report.boundary_frames.end());
  }

  void OnEvent(const Event& e) override {
    if (e.kind() == EventKind::kAlloc) {
      if (auto it = live_.find(e.address); it != live_.end()) {
        Release(it->second, e.frame, false);
        live_.erase(it);
      }
      // A block not judged is not followed: its free finds no live block.
      if (!judged_.empty() && !InRanges(judged_, e.frame)) return;
      Block block{e.stack_id, e.frame, e.size};
      live_[e.address] = block;
      Acc& a = At(e.stack_id);
      a.live_by_frame[e.frame]++;
      if (a.s.allocations == 0) a.s.size_min = a.s.size_max = e.size;
      a.s.allocations++;
      a.s.bytes += e.size;
      a.s.size_min = std::min(a.s.size_min, e.size);
      a.s.size_max = std::max(a.s.size_max, e.size);
      a.live_blocks++;
      a.live_bytes += e.size;
      a.s.peak_live_blocks = std::max(a.s.peak_live_blocks, a.live_blocks);
      a.s.peak_live_bytes = std::max(a.s.peak_live_bytes, a.live_bytes);
    } else if (e.kind() == EventKind::kFree) {
      auto it = live_.find(e.address);
      if (it == live_.end()) return;
      Release(it->second, e.frame, true);
      live_.erase(it);
    }
  }

  std::vector<SiteLifetime> Finish() {
    for (const auto& [address, block] : live_) At(block.stack).s.lived_to_end++;
    std::vector<SiteLifetime> out;
    out.reserve(sites_.size());
    for (auto& [stack, a] : sites_) {
      a.s.stack_id = stack;
      for (const auto& [delay, count] : a.in_order_by_delay) {
        if (count > a.s.ring_frees || (count == a.s.ring_frees && delay < a.s.ring_delay_frames)) {
          a.s.ring_frees = count;
          a.s.ring_delay_frames = delay;
        }
      }
      Classify(a.s, a.s.frees - a.ended_frees);
      out.push_back(a.s);
    }
    std::sort(out.begin(), out.end(), [](const SiteLifetime& x, const SiteLifetime& y) {
      if (x.calls_saved != y.calls_saved) return x.calls_saved > y.calls_saved;
      if (x.bytes_saved != y.bytes_saved) return x.bytes_saved > y.bytes_saved;
      if (x.allocations != y.allocations) return x.allocations > y.allocations;
      return x.stack_id < y.stack_id;
    });
    return out;
  }

 private:
  struct Block {
    uint32_t stack = 0;
    uint64_t frame = 0;
    uint64_t size = 0;
  };
  struct Acc {
    SiteLifetime s;
    uint64_t live_blocks = 0;
    uint64_t live_bytes = 0;
    std::map<uint64_t, uint64_t> live_by_frame;  // live blocks by the frame they were allocated in
    // Frees of the oldest live block, by lifetime; at most kMaxRingDelays
    // lifetimes are told apart (a ring has one).
    std::unordered_map<uint64_t, uint64_t> in_order_by_delay;
    uint64_t ended_frees = 0;  // at a phase boundary or in the teardown: no evidence for or against a ring
  };
  static constexpr size_t kMaxRingDelays = 16;

  Acc& At(uint32_t stack) { return sites_[stack]; }

  // `counted`: a real FREE (an ALLOC over a live block is not a call the
  // site made, but its block is gone all the same).
  void Release(const Block& block, uint64_t frame, bool counted) {
    Acc& a = At(block.stack);
    a.live_blocks--;
    a.live_bytes -= block.size;
    if (counted) a.s.frees++;
    uint64_t lifetime = frame > block.frame ? frame - block.frame : 0;
    // A ring's evidence is its frees in play: a free at a phase boundary or
    // in the teardown is the level or the game ending, whatever the class.
    const bool in_play = !(report_.has_teardown && frame > report_.last_ended_frame) && !boundaries_.count(frame);
    if (counted && !in_play) a.ended_frees++;
    auto oldest = a.live_by_frame.begin();
    const bool in_order = oldest != a.live_by_frame.end() && oldest->first == block.frame;
    if (counted && in_play && in_order &&
        (a.in_order_by_delay.size() < kMaxRingDelays || a.in_order_by_delay.count(lifetime)))
      a.in_order_by_delay[lifetime]++;
    if (auto it = a.live_by_frame.find(block.frame); it != a.live_by_frame.end() && --it->second == 0)
      a.live_by_frame.erase(it);
    a.s.lifetime_frames_max = std::max(a.s.lifetime_frames_max, lifetime);
    if (lifetime == 0) {
      a.s.freed_same_frame++;
    } else if (report_.has_teardown && frame > report_.last_ended_frame) {
      a.s.lived_to_end++;
    } else if (boundaries_.count(frame)) {
      a.s.freed_at_boundary++;
    }
  }

  static bool AtLeastShare(uint64_t part, uint64_t whole) {
    return static_cast<double>(part) >= kLifetimeShare * static_cast<double>(whole) - 1e-9;
  }

  // `played_frees`: the frees in play, neither at a boundary nor in the
  // teardown (a ring's share is of those).
  static void Classify(SiteLifetime& s, uint64_t played_frees) {
    if (AtLeastShare(s.freed_same_frame, s.allocations)) {
      s.lifetime = LifetimeClass::kFrame;
    } else if (AtLeastShare(s.lived_to_end, s.allocations)) {
      s.lifetime = LifetimeClass::kLongLived;
    } else if (s.freed_at_boundary > 0 && AtLeastShare(s.freed_at_boundary + s.lived_to_end, s.allocations)) {
      s.lifetime = LifetimeClass::kLevel;
    } else if (s.ring_delay_frames >= 1 && s.allocations >= kPoolTurnover * s.peak_live_blocks &&
               AtLeastShare(s.ring_frees, played_frees)) {
      s.lifetime = LifetimeClass::kRing;
    } else if (s.size_min == s.size_max && s.allocations >= kPoolTurnover * s.peak_live_blocks) {
      s.lifetime = LifetimeClass::kPool;
    } else {
      s.lifetime = LifetimeClass::kGeneral;
    }
    if (s.lifetime != LifetimeClass::kGeneral) {
      s.calls_saved = s.allocations + s.frees;
      s.bytes_saved = s.bytes;
    }
  }

  const LifetimeReport& report_;
  const std::vector<FrameRange>& judged_;
  std::unordered_set<uint64_t> boundaries_;
  std::unordered_map<uint64_t, Block> live_;
  std::unordered_map<uint32_t, Acc> sites_;
};

// Pass 3: the bytes the frame-class sites allocate in each judged frame.
class FrameArenaPass : public EventPass {
 public:
  FrameArenaPass(const std::vector<SiteLifetime>& sites, const std::vector<FrameRange>& judged) : judged_(judged) {
    for (const SiteLifetime& s : sites)
      if (s.lifetime == LifetimeClass::kFrame) frame_sites_.insert(s.stack_id);
  }

  bool needed() const { return !frame_sites_.empty(); }

  void OnEvent(const Event& e) override {
    if (!judged_.empty() && !InRanges(judged_, e.frame)) return;
    uint64_t& bytes = bytes_.At(e.frame);
    if (e.kind() == EventKind::kAlloc && frame_sites_.count(e.stack_id)) bytes += e.size;
  }

  void Finish(const std::vector<SiteLifetime>& sites, FrameArenaAdvice* advice) {
    std::vector<uint64_t> per_frame;
    for (const auto& [frame, bytes] : bytes_.TakeSorted()) per_frame.push_back(bytes);
    std::sort(per_frame.begin(), per_frame.end());
    advice->frames = per_frame.size();
    if (!per_frame.empty()) {
      // Nearest rank: the smallest value at least 99% of the frames reach.
      size_t rank = (per_frame.size() * 99 + 99) / 100;
      advice->p99_bytes = per_frame[rank - 1];
      advice->max_bytes = per_frame.back();
    }
    for (const SiteLifetime& s : sites) {
      if (s.lifetime != LifetimeClass::kFrame) continue;
      advice->calls_saved += s.calls_saved;
      advice->bytes_saved += s.bytes_saved;
    }
  }

 private:
  const std::vector<FrameRange>& judged_;
  std::unordered_set<uint32_t> frame_sites_;
  FrameRows<uint64_t> bytes_;
};

}  // namespace

LifetimeReport AnalyzeLifetimes(const Stream& stream, const std::vector<Phase>& phases,
                                const std::vector<FrameRange>& judged) {
  LifetimeReport report;
  BoundaryPass boundaries;
  Replay(stream, {&boundaries});
  boundaries.Finish(phases, &report);
  SiteLifetimePass sites(report, judged);
  Replay(stream, {&sites});
  report.sites = sites.Finish();
  report.frame_arena = AdviseFrameArena(stream, report.sites, judged);
  return report;
}

FrameArenaAdvice AdviseFrameArena(const Stream& stream, const std::vector<SiteLifetime>& sites,
                                  const std::vector<FrameRange>& judged) {
  FrameArenaAdvice advice;
  FrameArenaPass arena(sites, judged);
  if (arena.needed()) Replay(stream, {&arena});
  arena.Finish(sites, &advice);
  return advice;
}

std::vector<LevelLoad> AnalyzeLevelLoads(const Stream& stream, const std::vector<Phase>& phases) {
  std::vector<LevelLoad> loads;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::kLoad) loads.push_back({p.frames});
  if (loads.empty()) return loads;
  struct Block {
    size_t load;
    uint64_t size;
  };
  std::unordered_map<uint64_t, Block> live;  // blocks the loads allocated, until freed
  auto load_of = [&](uint64_t frame) -> size_t {
    auto it = std::upper_bound(loads.begin(), loads.end(), frame,
                               [](uint64_t f, const LevelLoad& l) { return f < l.frames.from; });
    if (it == loads.begin() || !std::prev(it)->frames.Contains(frame)) return SIZE_MAX;
    return static_cast<size_t>(std::prev(it) - loads.begin());
  };
  auto release = [&](uint64_t address, uint64_t frame) {
    auto it = live.find(address);
    if (it == live.end()) return;
    LevelLoad& l = loads[it->second.load];
    if (frame <= l.frames.to) {  // freed within its load: not the level's
      l.kept_blocks--;
      l.kept_bytes -= it->second.size;
    }
    live.erase(it);
  };
  for (const Event& e : stream.events) {
    if (e.kind() == EventKind::kFree) {
      release(e.address, e.frame);
    } else if (e.kind() == EventKind::kAlloc) {
      release(e.address, e.frame);  // a lost free: that block is gone
      const size_t i = load_of(e.frame);
      if (i == SIZE_MAX) continue;
      LevelLoad& l = loads[i];
      l.allocations++;
      l.bytes_allocated += e.size;
      l.kept_blocks++;
      l.kept_bytes += e.size;
      live[e.address] = {i, e.size};
    }
  }
  return loads;
}

LifetimeReport AnalyzeLifetimes(const Stream& stream, const std::vector<Phase>& phases, const JudgedFrames& judged) {
  return AnalyzeLifetimes(stream, phases, judged.steady_only ? judged.ranges : std::vector<FrameRange>{});
}

const char* LifetimeClassName(LifetimeClass c) {
  switch (c) {
    case LifetimeClass::kFrame: return "frame";
    case LifetimeClass::kLongLived: return "long-lived";
    case LifetimeClass::kLevel: return "level";
    case LifetimeClass::kPool: return "pool";
    case LifetimeClass::kRing: return "ring";
    case LifetimeClass::kGeneral: return "general";
  }
  return "?";
}

const char* LifetimeAdvice(LifetimeClass c) {
  switch (c) {
    case LifetimeClass::kFrame: return "frame arena: a linear allocator reset at the end of every frame";
    case LifetimeClass::kLongLived: return "allocate once at start-up, from a permanent arena";
    case LifetimeClass::kLevel: return "level allocator: a stack/linear allocator released at the phase boundary";
    case LifetimeClass::kPool: return "fixed-size pool with a free list";
    case LifetimeClass::kRing: return "ring buffer: freed in allocation order a fixed number of frames later";
    case LifetimeClass::kGeneral: return "keep on the general heap";
  }
  return "";
}

}  // namespace memframe::analysis
