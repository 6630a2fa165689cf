// The value axis of a chart: where its ticks go and what they say. Bytes
// are labelled in binary units, so their ticks sit at round binary values
// (256 KiB, 1 MiB, 1.25 MiB), never at powers of ten, which read as
// "97.7 KiB"; counts sit at 1, 2 and 5 times a power of ten.
#pragma once

#include <string>
#include <vector>

namespace memframe::viewer {

struct AxisTick {
  double value = 0;
  std::string label;
};

// Ticks in (0, max] of a linear axis, at most `max_ticks` of them, evenly
// stepped: bytes by a power of two, counts by 1, 2 or 5 x 10^k.
std::vector<AxisTick> LinearTicks(double max, bool bytes, int max_ticks = 4);

// Ticks in [1, max] of a log axis, at most `max_ticks`: bytes at powers of
// two (every 2^1, 2^2, 2^5, 2^10 or 2^20: 1 B, 32 B, 1 KiB, 32 KiB, ...),
// counts at powers of ten (every 10, 100, ...).
std::vector<AxisTick> LogTicks(double max, bool bytes, int max_ticks = 6);

}  // namespace memframe::viewer
