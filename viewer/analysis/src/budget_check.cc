// CheckBudget (budget.h): the figures each budget names, from the heap
// analysis, the phases and the symbolized sites, in phase order and then
// those of the whole run.
#include <algorithm>

#include "budget_steady.h"
#include "memframe/analysis/budget.h"
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/mismatches.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

bool HasSteadyBudget(const Budget& b) {
  auto any = [](const SteadyLimits& l) {
    return l.all.allocations || l.all.bytes || !l.module_classes.empty() || !l.sites.empty();
  };
  return any(b.steady_frame) || any(b.steady_worst_frame) || b.allocator_time_p99_ns;
}

// "load 1: GPU live bytes after": the GPU total at the end of the load's last frame.
void CheckGpuLoad(const GpuAnalysis& gpu, const Budget& budget, const Phase& load, std::vector<BudgetCheck>* out) {
  if (!budget.gpu_load_live_bytes) return;
  const std::string name = PhaseName(load);
  const uint64_t live = gpu.LiveTotal(load.frames.to);
  out->push_back({name + ": GPU live bytes after", name, *budget.gpu_load_live_bytes, live, 1,
                  FrameRange{load.frames.to, load.frames.to}, live <= *budget.gpu_load_live_bytes, "bytes", ""});
}

// "steady 2: GPU bytes made a frame": the mean over the phase's frames, exact
// as the heap's means; null `steady`: the capture has no steady phase.
void CheckGpuSteady(const GpuAnalysis& gpu, const FrameTable& frames, const Budget& budget, const Phase* steady,
                    std::vector<BudgetCheck>* out) {
  if (!budget.gpu_steady_frame_bytes) return;
  BudgetCheck c;
  c.limit = *budget.gpu_steady_frame_bytes;
  c.unit = "bytes";
  if (!steady) {
    c.name = "steady: GPU bytes made a frame";
    c.passed = false;
    c.note = "no steady phase";
    out->push_back(std::move(c));
    return;
  }
  c.phase = PhaseName(*steady);
  c.name = c.phase + ": GPU bytes made a frame";
  for (uint64_t f = steady->frames.from; f <= steady->frames.to; ++f)
    if (f >= gpu.first_frame && f - gpu.first_frame < gpu.frames.size())
      c.actual += gpu.frames[f - gpu.first_frame].made_bytes;
  c.per_frames = std::max<uint64_t>(frames.CountIn(steady->frames), 1);
  c.frames = steady->frames;
  c.passed = c.actual <= static_cast<unsigned __int128>(c.limit) * c.per_frames;
  out->push_back(std::move(c));
}

// How many phases of `kind` the run has, against `limit`.
void CountPhases(const std::vector<Phase>& phases, PhaseKind kind, const char* name, std::optional<uint64_t> limit,
                 std::vector<BudgetCheck>* out) {
  if (!limit) return;
  BudgetCheck c;
  c.name = name;
  c.limit = *limit;
  c.actual = static_cast<uint64_t>(
      std::count_if(phases.begin(), phases.end(), [&](const Phase& p) { return p.kind == kind; }));
  c.passed = c.actual <= c.limit;
  c.unit = "count";
  out->push_back(c);
}

void CheckWholeRun(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer, const Budget& budget,
                   std::vector<BudgetCheck>* out) {
  const std::vector<Phase>& phases = FindPhases(heap.frames);
  CountPhases(phases, PhaseKind::kLoad, "loads", budget.loads, out);
  CountPhases(phases, PhaseKind::kUnload, "unloads", budget.unloads, out);

  const Stream& stream = capture.main;
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
  out->push_back({"leaked blocks" + leak_classes, "", budget.leak_blocks, leak_blocks, 1, std::nullopt,
                  leak_blocks <= budget.leak_blocks, "count", ""});
  out->push_back({"leaked bytes" + leak_classes, "", budget.leak_bytes, leak_bytes, 1, std::nullopt,
                  leak_bytes <= budget.leak_bytes, "bytes", ""});

  uint64_t mismatches = 0;
  for (const Mismatch& m : FindMismatches(stream).mismatches) mismatches += m.count;
  out->push_back({"mismatched frees", "", budget.mismatches, mismatches, 1, std::nullopt,
                  mismatches <= budget.mismatches, "count", ""});
}

}  // namespace

size_t BudgetReport::broken() const {
  return static_cast<size_t>(
      std::count_if(checks.begin(), checks.end(), [](const BudgetCheck& c) { return !c.passed; }));
}

BudgetReport CheckBudget(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer, const Budget& budget,
                         const Phase* only) {
  BudgetReport report;
  const std::vector<Phase>& phases = FindPhases(heap.frames);
  if (only) report.only_phase = PhaseName(*only);
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::kSteady && (!only || only == &p)) report.steady.push_back(p);
  const SteadySeries steady(capture, heap, symbolizer, budget, report.steady);
  const bool gpu_budget = budget.gpu_load_live_bytes || budget.gpu_steady_frame_bytes;
  const GpuAnalysis gpu = gpu_budget ? AnalyzeGpu(capture.main, heap.frames) : GpuAnalysis{};

  for (const Phase& p : phases) {
    if (only && only != &p) continue;
    if (p.kind == PhaseKind::kSteady) {
      steady.Check(&p, &report.checks);
      CheckGpuSteady(gpu, heap.frames, budget, &p, &report.checks);
    }
    if (p.kind == PhaseKind::kLoad && budget.load_live_bytes) {
      const std::string name = PhaseName(p);
      report.checks.push_back({name + ": live bytes after", name, *budget.load_live_bytes, p.live_after, 1,
                               FrameRange{p.frames.to, p.frames.to}, p.live_after <= *budget.load_live_bytes, "bytes",
                               ""});
    }
    if (p.kind == PhaseKind::kLoad) CheckGpuLoad(gpu, budget, p, &report.checks);
  }
  if (only) return report;
  // A steady budget that no phase could be judged by is broken, not met.
  if (report.steady.empty() && HasSteadyBudget(budget)) steady.Check(nullptr, &report.checks);
  if (report.steady.empty()) CheckGpuSteady(gpu, heap.frames, budget, nullptr, &report.checks);
  CheckWholeRun(capture, heap, symbolizer, budget, &report.checks);
  return report;
}

}  // namespace memframe::analysis
