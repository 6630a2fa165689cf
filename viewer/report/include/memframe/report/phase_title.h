// How a phase judged on its own is titled, in the reports' per-phase parts
// and in the viewer's phase picker alike.
#pragma once

#include <string>

#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/phase.h"

namespace memframe::analysis {

// "steady 2: frames 122..271 (150 frames), 2,008 allocations / 127 KiB a
// frame" (a steady phase's rate is the median of its frames); other kinds
// without the rate.
std::string PhaseTitle(const Phase& phase, const FrameTable& table);

}  // namespace memframe::analysis
