// CheckBudget (budget.h): the figures each budget names, from the heap
// analysis, the phases and the symbolized sites.
#include <fnmatch.h>

#include <algorithm>
#include <map>

#include "memframe/analysis/budget.h"
#include "memframe/analysis/mismatches.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

// Allocations and bytes of each steady frame (frames without any count as 0).
struct SteadyFrameAmounts {
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> frames;

  void Add(uint64_t frame, uint64_t allocations, uint64_t bytes) {
    auto& f = frames[frame];
    f.first += allocations;
    f.second += bytes;
  }
};

bool InSteady(const std::vector<FrameRange>& steady, uint64_t frame) {
  for (const FrameRange& r : steady)
    if (r.Contains(frame)) return true;
  return false;
}

bool Matches(const std::string& pattern, const std::vector<SourceFrame>& stack) {
  for (const SourceFrame& f : stack) {
    if (fnmatch(pattern.c_str(), f.function.c_str(), 0) == 0) return true;
    const std::string line = LineLocation(f);
    if (!line.empty() && fnmatch(pattern.c_str(), line.c_str(), 0) == 0) return true;
  }
  return false;
}

class Checker {
 public:
  explicit Checker(BudgetReport* report) : report_(report) {}

  // The worst steady frame against `limit`; "what" names the figure.
  void Frames(const std::string& what, const FrameLimit& limit, const SteadyFrameAmounts& per_frame) {
    Worst(what + " allocations", limit.allocations, per_frame, [](auto v) { return v.first; }, "count");
    Worst(what + " bytes", limit.bytes, per_frame, [](auto v) { return v.second; }, "bytes");
  }

  void Add(BudgetCheck check) { report_->checks.push_back(std::move(check)); }

 private:
  template <typename Get>
  void Worst(const std::string& name, std::optional<uint64_t> limit, const SteadyFrameAmounts& per_frame, Get get,
             const char* unit) {
    if (!limit) return;
    BudgetCheck c{name, *limit, 0, std::nullopt, true, unit, ""};
    if (report_->steady_frames == 0) {
      c.passed = false;
      c.note = "no steady frames";
    }
    for (const auto& [frame, value] : per_frame.frames) {
      if (!c.frame || get(value) > c.actual) {
        c.actual = get(value);
        c.frame = frame;
      }
    }
    c.passed = c.passed && c.actual <= *limit;
    Add(c);
  }

  BudgetReport* report_;
};

}  // namespace

size_t BudgetReport::broken() const {
  return static_cast<size_t>(std::count_if(checks.begin(), checks.end(), [](const BudgetCheck& c) { return !c.passed; }));
}

BudgetReport CheckBudget(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer,
                         const Budget& budget) {
  const Stream& stream = capture.main;
  BudgetReport report;
  const std::vector<Phase> phases = FindPhases(heap.frames);
  report.steady = SteadyRanges(phases);
  for (const FrameRange& r : report.steady) report.steady_frames += heap.frames.CountIn(r);
  Checker check(&report);

  SteadyFrameAmounts whole;
  for (const FrameStats& f : heap.frames.frames)
    if (InSteady(report.steady, f.frame)) whole.Add(f.frame, f.allocations, f.bytes_allocated);
  check.Frames("steady frame", budget.steady_frame, whole);

  // Sites by class and by pattern, symbolized once each.
  std::vector<SteadyFrameAmounts> by_class(budget.module_classes.size()), by_site(budget.sites.size());
  if (!budget.module_classes.empty() || !budget.sites.empty()) {
    for (const SiteHistory& site : heap.sites.sites()) {
      auto it = stream.stacks.find(site.stack_id);
      const std::vector<SourceFrame> stack =
          it == stream.stacks.end() ? std::vector<SourceFrame>{} : symbolizer.SymbolizeStack(it->second);
      const ModuleClass c = FindSiteOrigin(stack).module_class;
      for (const SiteFrame& f : site.frames) {
        if (!InSteady(report.steady, f.frame)) continue;
        for (size_t i = 0; i < budget.module_classes.size(); ++i)
          if (budget.module_classes[i].first == c) by_class[i].Add(f.frame, f.allocations, f.bytes);
        for (size_t i = 0; i < budget.sites.size(); ++i)
          if (Matches(budget.sites[i].pattern, stack)) by_site[i].Add(f.frame, f.allocations, f.bytes);
      }
    }
  }
  for (size_t i = 0; i < budget.module_classes.size(); ++i)
    check.Frames(std::string("steady frame ") + ModuleClassName(budget.module_classes[i].first), budget.module_classes[i].second,
                 by_class[i]);
  for (size_t i = 0; i < budget.sites.size(); ++i)
    check.Frames("steady frame site " + budget.sites[i].pattern, budget.sites[i].limit, by_site[i]);

  if (budget.allocator_time_p99_ns) {
    std::vector<std::pair<uint64_t, uint64_t>> times;  // ns, frame
    for (const FrameStats& f : heap.frames.frames)
      if (InSteady(report.steady, f.frame)) times.emplace_back(f.alloc_time_ns, f.frame);
    BudgetCheck c{"steady frame allocator time p99", *budget.allocator_time_p99_ns, 0, std::nullopt, true, "ns", ""};
    if (times.empty()) {
      c.passed = false;
      c.note = "no steady frames";
    } else {
      // Nearest rank: the smallest value at least 99% of the frames reach.
      std::sort(times.begin(), times.end());
      const size_t rank = (times.size() * 99 + 99) / 100 - 1;
      c.actual = times[rank].first;
      c.frame = times[rank].second;
      c.passed = c.actual <= c.limit;
    }
    check.Add(c);
  }

  if (budget.load_live_bytes) {
    for (const Phase& p : phases) {
      if (p.kind != PhaseKind::kLoad) continue;
      const std::string frames = p.frames.from == p.frames.to ? std::to_string(p.frames.from)
                                                              : std::to_string(p.frames.from) + "-" + std::to_string(p.frames.to);
      check.Add({"live bytes after load " + frames, *budget.load_live_bytes, p.live_after, p.frames.to,
                 p.live_after <= *budget.load_live_bytes, "bytes", ""});
    }
  }

  uint64_t leak_blocks = 0, leak_bytes = 0;
  for (const LeakSite& leak : heap.leaks.sites) {
    auto it = stream.stacks.find(leak.stack_id);
    const ModuleClass c =
        FindSiteOrigin(it == stream.stacks.end() ? std::vector<SourceFrame>{} : symbolizer.SymbolizeStack(it->second))
            .module_class;
    if (!budget.leak_classes.Keeps(c)) continue;
    leak_blocks += leak.blocks;
    leak_bytes += leak.bytes;
  }
  const std::string leak_classes = budget.leak_classes.KeepsAll() ? "" : " (" + budget.leak_classes.Describe() + ")";
  check.Add({"leaked blocks" + leak_classes, budget.leak_blocks, leak_blocks, std::nullopt,
             leak_blocks <= budget.leak_blocks, "count", ""});
  check.Add({"leaked bytes" + leak_classes, budget.leak_bytes, leak_bytes, std::nullopt,
             leak_bytes <= budget.leak_bytes, "bytes", ""});

  uint64_t mismatches = 0;
  for (const Mismatch& m : FindMismatches(stream).mismatches) mismatches += m.count;
  check.Add({"mismatched frees", budget.mismatches, mismatches, std::nullopt, mismatches <= budget.mismatches, "count", ""});
  return report;
}

}  // namespace memframe::analysis
