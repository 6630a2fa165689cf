// `memframe check`: memory budgets a studio writes once and CI checks every
// capture against (REPORTS.md, "memframe check", has the file format).
//
// Budgets are judged phase by phase (phases.h), each named by its phase's
// stable name, never by frame numbers, so that two runs of a game give the
// same checks: per-frame budgets once per steady phase, on its typical frame
// (the mean over all its frames, spikes included: a transient that recurs
// every 7th frame is part of what the phase costs) and on its worst frame;
// allocator time on the p99 of each steady phase's frames; load budgets on
// the live heap at the end of each load; the number of loads and unloads,
// leaks and mismatches on the whole capture. GPU budgets as the heap's: the
// GPU bytes live after each load, the GPU bytes made per steady frame.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/module_class.h"
#include "memframe/analysis/phase.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct FrameLimit {
  std::optional<uint64_t> allocations;
  std::optional<uint64_t> bytes;
};

struct SiteBudget {
  // A glob (fnmatch) matched against each frame of a site's stack: its
  // function, or its "file.cpp:LINE" (file name only).
  std::string pattern;
  FrameLimit limit;
};

// Limits on a frame of steady play: the whole process's allocations, those
// of sites in a module class, those of sites matching a pattern.
struct SteadyLimits {
  FrameLimit all;
  std::vector<std::pair<ModuleClass, FrameLimit>> module_classes;
  std::vector<SiteBudget> sites;
};

struct Budget {
  SteadyLimits steady_frame;                      // each steady phase's mean frame ("steady_frame")
  SteadyLimits steady_worst_frame;                // each steady phase's worst frame ("steady_worst_frame")
  std::optional<uint64_t> allocator_time_p99_ns;  // per steady phase
  std::optional<uint64_t> load_live_bytes;        // per load
  std::optional<uint64_t> loads;                  // load phases in the run
  std::optional<uint64_t> unloads;                // unload phases in the run
  // Blocks live at the end, of sites in leak_classes: none by default, of
  // the game's own sites (libraries keep caches to the end by design).
  uint64_t leak_blocks = 0;
  uint64_t leak_bytes = 0;
  ClassFilter leak_classes = GameOnly();
  uint64_t mismatches = 0;  // frees that do not match their allocation (mismatches.h)
  // GPU objects (gpu_objects.h), the "gpu" object: the GPU bytes live at
  // the end of each load, and the GPU bytes made (new objects, resizes,
  // images) in each steady phase's mean frame.
  std::optional<uint64_t> gpu_load_live_bytes;
  std::optional<uint64_t> gpu_steady_frame_bytes;

  static ClassFilter GameOnly() {
    ClassFilter f;
    f.kept = 1u << static_cast<int>(ModuleClass::kGame);
    return f;
  }
};

// Parses a budget file's JSON. False with *error naming the bad key
// ("steady_frame.alocations: unknown key") otherwise.
bool ParseBudget(const std::string& text, Budget* budget, std::string* error);

struct BudgetCheck {
  // "steady 2: allocations a frame", "steady 2: worst frame bytes",
  // "load 1: live bytes after", "loads", "leaked bytes (game)".
  std::string name;
  std::string phase;  // the phase's stable name; "" for a check of the whole run
  uint64_t limit = 0;
  // The figure is actual / per_frames: a mean a frame holds the phase's
  // total and its frame count, so that the verdict is exact
  // (actual <= limit * per_frames); every other figure has per_frames 1.
  uint64_t actual = 0;
  uint64_t per_frames = 1;
  // Where the figure was reached: one frame (the worst, the p99's, a load's
  // last) or a mean's phase; none for a whole-run figure.
  std::optional<FrameRange> frames;
  bool passed = true;
  std::string unit;  // "count", "bytes", "ns"
  std::string note;  // why it failed without a figure ("no steady phase")
};

struct BudgetReport {
  std::vector<BudgetCheck> checks;
  std::vector<Phase> steady;  // the steady phases the per-frame budgets looked at
  std::string only_phase;     // the phase checked alone (--phase), "" for the whole run
  size_t broken() const;
};

// Every budget of `budget` against the capture; with `only` (a phase of
// heap.frames.phases) only the checks of that phase, none of the whole run.
BudgetReport CheckBudget(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer, const Budget& budget,
                         const Phase* only = nullptr);

}  // namespace memframe::analysis
