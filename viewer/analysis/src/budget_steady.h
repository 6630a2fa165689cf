// The steady-phase budgets of CheckBudget (budget.h): each budgeted figure
// once per steady phase, on the phase's mean frame and on its worst frame.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "memframe/analysis/budget.h"

namespace memframe::analysis {

// Allocations and bytes of each frame of steady play that allocated.
using FrameAmounts = std::map<uint64_t, std::pair<uint64_t, uint64_t>>;

// The per-frame amounts every steady budget names (the whole process, each
// module class, each site pattern), over the steady phases' frames; the
// sites are symbolized once for both kinds of budget.
class SteadySeries {
 public:
  SteadySeries(const Capture& capture, const HeapAnalysis& heap, Symbolizer& symbolizer, const Budget& budget,
               const std::vector<Phase>& steady);

  // Appends the checks of `phase`, a steady phase; null when the capture
  // has none, so that each budgeted figure fails ("no steady phase").
  void Check(const Phase* phase, std::vector<BudgetCheck>* out) const;

 private:
  struct Series {                       // one per SteadyLimits
    std::vector<FrameAmounts> classes;  // parallel to SteadyLimits::module_classes
    std::vector<FrameAmounts> sites;    // parallel to SteadyLimits::sites
  };

  const FrameTable& table_;
  const Budget& budget_;
  FrameAmounts all_;
  Series mean_, worst_;
};

}  // namespace memframe::analysis
