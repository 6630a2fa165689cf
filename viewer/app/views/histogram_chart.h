// The size histogram as a bar chart: per power-of-two bin, the number of
// allocations (blue) and their bytes (green), each scaled to its own
// largest bin so both shapes are readable.
#pragma once

#include <imgui.h>

#include "memframe/analysis/size_histogram.h"

namespace memframe::viewer {

void DrawHistogramChart(const analysis::SizeHistogram& histogram, ImVec2 size);

}  // namespace memframe::viewer
