// `memframe compare BASE NEW`: two captures of the same game (two builds,
// two runs) side by side. Sites are matched by their symbolized stacks
// (function and file:line of every frame, module+offset where there is no
// line), never by address, so two builds compare. Per-site figures are per
// steady frame (phases.h), so runs of different lengths compare too.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/module_class.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/ratios.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

// One capture, analysed for comparing.
struct CompareInput {
  const Capture& capture;
  const HeapAnalysis& heap;
  Symbolizer& symbolizer;
};

struct SideFigures {
  uint64_t allocations = 0;  // in the steady frames
  uint64_t bytes = 0;
};

struct SiteComparison {
  enum class Change { kNew, kGone, kChanged, kSame };
  Change change = Change::kSame;
  std::string name;      // as the reports name it (SiteName)
  std::string function;  // of the user frame
  std::string location;  // "file.cpp:LINE" of the user frame, "" if unknown
  ModuleClass module_class = ModuleClass::kSystem;
  SideFigures base, next;
};

struct PhaseComparison {
  std::optional<Phase> base, next;  // matched in order; a side may have fewer phases
};

struct LeakComparison {
  std::string name;
  ModuleClass module_class = ModuleClass::kSystem;
  uint64_t base_blocks = 0, base_bytes = 0, next_blocks = 0, next_bytes = 0;
};

struct CaptureComparison {
  uint64_t base_steady_frames = 0, next_steady_frames = 0;
  SideFigures base_total, next_total;  // every site in the steady frames
  uint64_t base_leaked_bytes = 0, next_leaked_bytes = 0;
  // New, gone and changed sites, by the change in bytes per steady frame
  // (largest first), then name.
  std::vector<SiteComparison> sites;
  uint64_t unchanged_sites = 0;
  std::vector<PhaseComparison> phases;
  std::vector<LeakComparison> leaks_added;  // more blocks or bytes in NEW, by added bytes
};

CaptureComparison CompareCaptures(const CompareInput& base, const CompareInput& next);

// What --fail-on-regression PCT calls a regression: steady allocations or
// bytes per frame, or leaked bytes, grown by more than PCT percent; or a
// game site new in NEW, or whose allocations or bytes per frame grew by more
// than PCT percent. One line each; empty when there is none.
std::vector<std::string> FindRegressions(const CaptureComparison& c, double percent);

}  // namespace memframe::analysis
