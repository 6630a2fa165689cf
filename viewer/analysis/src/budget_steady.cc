// SteadySeries (budget_steady.h): per steady phase, the mean frame (every
// frame of the phase, spikes included, so that a transient which recurs is
// part of the phase's cost) and the worst single frame.
#include "budget_steady.h"

#include <fnmatch.h>

#include <algorithm>
#include <string>

#include "memframe/analysis/phases.h"
#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

bool StackMatches(const std::string& pattern, const std::vector<SourceFrame>& stack) {
  for (const SourceFrame& f : stack) {
    if (fnmatch(pattern.c_str(), f.function.c_str(), 0) == 0) return true;
    const std::string line = LineLocation(f);
    if (!line.empty() && fnmatch(pattern.c_str(), line.c_str(), 0) == 0) return true;
  }
  return false;
}

void AddAmounts(FrameAmounts& amounts, uint64_t frame, uint64_t allocations, uint64_t bytes) {
  auto& a = amounts[frame];
  a.first += allocations;
  a.second += bytes;
}

enum class SteadyFigure { kMean, kWorst };

// The checks of one series ("what": "", "game ", "site *Hud* ") in one
// phase against `limit`.
class PhaseChecker {
 public:
  PhaseChecker(const Phase* phase, uint64_t frame_count, std::vector<BudgetCheck>* out)
      : phase_(phase), frame_count_(frame_count), out_(out) {}

  void Check(SteadyFigure figure, const std::string& what, const FrameLimit& limit, const FrameAmounts& amounts) const {
    One(figure, what + "allocations", limit.allocations, amounts, &std::pair<uint64_t, uint64_t>::first, "count");
    One(figure, what + "bytes", limit.bytes, amounts, &std::pair<uint64_t, uint64_t>::second, "bytes");
  }

  void Add(BudgetCheck c, const std::string& what) const {
    c.phase = phase_ ? PhaseName(*phase_) : "";
    c.name = (phase_ ? c.phase : std::string("steady")) + ": " + what;
    if (!phase_) {
      c.passed = false;
      c.note = "no steady phase";
    }
    out_->push_back(std::move(c));
  }

 private:
  void One(SteadyFigure figure, const std::string& what, std::optional<uint64_t> limit, const FrameAmounts& amounts,
           uint64_t std::pair<uint64_t, uint64_t>::*field, const char* unit) const {
    if (!limit) return;
    BudgetCheck c;
    c.limit = *limit;
    c.unit = unit;
    if (phase_) {
      const auto first = amounts.lower_bound(phase_->frames.from), last = amounts.upper_bound(phase_->frames.to);
      if (figure == SteadyFigure::kMean) {
        for (auto it = first; it != last; ++it) c.actual += it->second.*field;
        c.per_frames = std::max<uint64_t>(frame_count_, 1);
        c.frames = phase_->frames;
      } else {
        for (auto it = first; it != last; ++it) {
          if (c.frames && it->second.*field <= c.actual) continue;
          c.actual = it->second.*field;
          c.frames = FrameRange{it->first, it->first};
        }
      }
      c.passed = c.actual <= static_cast<unsigned __int128>(*limit) * c.per_frames;  // no overflow for any limit
    }
    Add(std::move(c), figure == SteadyFigure::kMean ? what + " a frame" : "worst frame " + what);
  }

  const Phase* phase_;
  uint64_t frame_count_;
  std::vector<BudgetCheck>* out_;
};

}  // namespace

SteadySeries::SteadySeries(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer,
                           const Budget& budget, const std::vector<Phase>& steady)
    : table_(heap.frames), budget_(budget) {
  std::vector<FrameRange> ranges;
  for (const Phase& p : steady) ranges.push_back(p.frames);
  for (const FrameStats& f : table_.frames)
    if (InRanges(ranges, f.frame)) AddAmounts(all_, f.frame, f.allocations, f.bytes_allocated);

  mean_.classes.resize(budget.steady_frame.module_classes.size());
  mean_.sites.resize(budget.steady_frame.sites.size());
  worst_.classes.resize(budget.steady_worst_frame.module_classes.size());
  worst_.sites.resize(budget.steady_worst_frame.sites.size());
  if (mean_.classes.empty() && mean_.sites.empty() && worst_.classes.empty() && worst_.sites.empty()) return;
  const Stream& stream = capture.main;
  for (const SiteHistory& site : heap.sites.sites()) {
    auto it = stream.stacks.find(site.stack_id);
    const std::vector<SourceFrame> stack =
        it == stream.stacks.end() ? std::vector<SourceFrame>{} : symbolizer.SymbolizeStack(it->second);
    const ModuleClass c = FindSiteOrigin(stack).module_class;
    // Which series this site feeds, decided once for all its frames.
    std::vector<FrameAmounts*> feeds;
    auto collect = [&](const SteadyLimits& limits, Series& series) {
      for (size_t i = 0; i < limits.module_classes.size(); ++i)
        if (limits.module_classes[i].first == c) feeds.push_back(&series.classes[i]);
      for (size_t i = 0; i < limits.sites.size(); ++i)
        if (StackMatches(limits.sites[i].pattern, stack)) feeds.push_back(&series.sites[i]);
    };
    collect(budget.steady_frame, mean_);
    collect(budget.steady_worst_frame, worst_);
    if (feeds.empty()) continue;
    for (const SiteFrame& f : site.frames)
      if (InRanges(ranges, f.frame))
        for (FrameAmounts* a : feeds) AddAmounts(*a, f.frame, f.allocations, f.bytes);
  }
}

void SteadySeries::Check(const Phase* phase, std::vector<BudgetCheck>* out) const {
  const PhaseChecker check(phase, phase ? table_.CountIn(phase->frames) : 0, out);
  auto limits = [&](SteadyFigure figure, const SteadyLimits& l, const Series& s) {
    check.Check(figure, "", l.all, all_);
    for (size_t i = 0; i < l.module_classes.size(); ++i)
      check.Check(figure, std::string(ModuleClassName(l.module_classes[i].first)) + " ", l.module_classes[i].second,
                  s.classes[i]);
    for (size_t i = 0; i < l.sites.size(); ++i)
      check.Check(figure, "site " + l.sites[i].pattern + " ", l.sites[i].limit, s.sites[i]);
  };
  limits(SteadyFigure::kMean, budget_.steady_frame, mean_);
  limits(SteadyFigure::kWorst, budget_.steady_worst_frame, worst_);

  if (budget_.allocator_time_p99_ns) {
    BudgetCheck c;
    c.limit = *budget_.allocator_time_p99_ns;
    c.unit = "ns";
    if (phase) {
      std::vector<std::pair<uint64_t, uint64_t>> times;  // ns, frame
      const auto [first, end] = table_.RowsIn(phase->frames);
      for (size_t i = first; i < end; ++i) times.emplace_back(table_.frames[i].alloc_time_ns, table_.frames[i].frame);
      if (!times.empty()) {
        // Nearest rank: the smallest value at least 99% of the frames reach.
        std::sort(times.begin(), times.end());
        const size_t rank = (times.size() * 99 + 99) / 100 - 1;
        c.actual = times[rank].first;
        c.frames = FrameRange{times[rank].second, times[rank].second};
      }
      c.passed = c.actual <= c.limit;
    }
    check.Add(std::move(c), "allocator time p99");
  }
}

}  // namespace memframe::analysis
