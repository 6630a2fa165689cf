// The size histogram as a bar chart: per power-of-two bin, the number of
// allocations (blue) and their bytes (green), each scaled to its own
// largest bin so both shapes are readable.
#pragma once

#include <optional>

#include <imgui.h>

#include "memframe/analysis/size_histogram.h"

namespace memframe::viewer {

// A click on a bin sets *size_bin to it (the tables' size filter; a click
// on the picked bin clears it); the picked bin is outlined.
void DrawHistogramChart(const analysis::SizeHistogram& histogram, ImVec2 size, std::optional<int>* size_bin);

}  // namespace memframe::viewer
