// `memframe check`: memory budgets a studio writes once and CI checks every
// capture against (REPORTS.md, "memframe check", has the file format).
//
// Per-frame budgets are checked on the worst steady frame (phases.h: steady
// play, start-up, loads and teardown excepted); allocator time on the p99
// of the steady frames; load budgets on the live heap at the end of each
// load; leaks and mismatches on the whole capture.
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

struct Budget {
  FrameLimit steady_frame;
  std::vector<std::pair<ModuleClass, FrameLimit>> module_classes;
  std::vector<SiteBudget> sites;
  std::optional<uint64_t> allocator_time_p99_ns;
  std::optional<uint64_t> load_live_bytes;
  // Blocks live at the end, of sites in leak_classes: none by default, of
  // the game's own sites (libraries keep caches to the end by design).
  uint64_t leak_blocks = 0;
  uint64_t leak_bytes = 0;
  ClassFilter leak_classes = GameOnly();
  uint64_t mismatches = 0;  // frees that do not match their allocation (mismatches.h)

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
  std::string name;      // "steady frame allocations", "site *Hud* bytes", "live bytes after load 30-31"
  uint64_t limit = 0;
  uint64_t actual = 0;
  std::optional<uint64_t> frame;  // where the actual figure was reached
  bool passed = true;
  std::string unit;      // "count", "bytes", "ns"
  std::string note;      // why it failed without a figure ("no steady frames")
};

struct BudgetReport {
  std::vector<BudgetCheck> checks;
  std::vector<FrameRange> steady;  // the steady frames the per-frame budgets looked at
  uint64_t steady_frames = 0;
  size_t broken() const;
};

BudgetReport CheckBudget(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer,
                         const Budget& budget);

}  // namespace memframe::analysis
