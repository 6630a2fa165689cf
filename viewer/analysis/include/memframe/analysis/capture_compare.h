// `memframe compare BASE NEW`: two captures of the same game (two builds,
// two runs) side by side. Sites are matched by their symbolized stacks
// (function and file:line of every frame, module+offset where there is no
// line), never by address, so two builds compare. Per-site figures are per
// steady frame (phases.h), so runs of different lengths compare too. Only
// like is compared with like: phases by kind and ordinal ("load 2" with
// "load 2"), and leaks only between two runs that exited (blocks live when
// memframe detached, or when the game was killed, are no leaks).
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
#include "memframe/analysis/program_end.h"
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

// A phase of either side, paired with the phase of the same kind and ordinal
// on the other ("load 2": the second load); a side without it is nullopt.
struct PhaseComparison {
  PhaseKind kind = PhaseKind::kSteady;
  uint32_t ordinal = 1;  // 1 and up, within its kind, in FindPhases' order
  std::optional<Phase> base, next;
};

// "load 2".
std::string PhaseLabel(PhaseKind kind, uint32_t ordinal);

// The phases of two runs paired by kind and ordinal, in the order of both
// runs: BASE's order, each phase only NEW has after the phase NEW has
// before it.
std::vector<PhaseComparison> PairPhases(const std::vector<Phase>& base, const std::vector<Phase>& next);

struct LeakComparison {
  std::string name;
  ModuleClass module_class = ModuleClass::kSystem;
  uint64_t base_blocks = 0, base_bytes = 0, next_blocks = 0, next_bytes = 0;
};

struct CaptureComparison {
  uint64_t base_steady_frames = 0, next_steady_frames = 0;
  SideFigures base_total, next_total;  // every site in the steady frames
  ProgramEnd base_end, next_end;
  // Both runs exited, so the blocks live at their ends are leaks and
  // compare; otherwise leaks_added is empty and no leak is a regression.
  bool leaks_compared = false;
  uint64_t base_leaked_bytes = 0, next_leaked_bytes = 0;  // live at each end, leaks or not
  // New, gone and changed sites, by the change in bytes per steady frame
  // (largest first), then name.
  std::vector<SiteComparison> sites;
  uint64_t unchanged_sites = 0;
  std::vector<PhaseComparison> phases;
  std::vector<LeakComparison> leaks_added;  // more blocks or bytes in NEW, by added bytes (leaks_compared only)
};

// Why the leaks were not compared ("" when they were): "BASE ran on after
// memframe detached, so the blocks live at its end are no leaks".
std::string LeaksNotComparedReason(const CaptureComparison& c);

CaptureComparison CompareCaptures(const CompareInput& base, const CompareInput& next);

// What --fail-on-regression PCT calls a regression: steady allocations or
// bytes per frame, or leaked bytes (leaks_compared only), grown by more than
// PCT percent; or a
// game site new in NEW, or whose allocations or bytes per frame grew by more
// than PCT percent. One line each; empty when there is none.
std::vector<std::string> FindRegressions(const CaptureComparison& c, double percent);

}  // namespace memframe::analysis
