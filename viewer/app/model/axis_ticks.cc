#include "axis_ticks.h"

#include <cmath>
#include <cstdio>

#include "format.h"

namespace memframe::viewer {

namespace {

std::string Label(double value, bool bytes) {
  return bytes ? analysis::FormatBytesExact(value) : FormatCount(static_cast<uint64_t>(std::llround(value)));
}

double LinearStep(double max, bool bytes, int max_ticks) {
  const double want = max / max_ticks;
  if (bytes) {
    double step = 1;
    while (step < want) step *= 2;
    return step;
  }
  for (double decade = 1;; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (decade * m >= want) return decade * m;
    }
  }
}

}  // namespace

std::vector<AxisTick> LinearTicks(double max, bool bytes, int max_ticks) {
  std::vector<AxisTick> ticks;
  if (!(max > 0) || max_ticks < 1) return ticks;
  const double step = LinearStep(max, bytes, max_ticks);
  for (double v = step; v <= max; v += step) ticks.push_back({v, Label(v, bytes)});
  return ticks;
}

std::vector<AxisTick> LogTicks(double max, bool bytes, int max_ticks) {
  std::vector<AxisTick> ticks;
  if (!(max >= 1) || max_ticks < 1) return ticks;
  const double base = bytes ? 2 : 10;
  const double decades = std::floor(std::log(max) / std::log(base) + 1e-9);  // ticks at base^0 .. base^decades
  double every = 1;
  for (double e : bytes ? std::vector<double>{1, 2, 5, 10, 20} : std::vector<double>{1, 2, 3, 6}) {
    every = e;
    if (std::floor(decades / e) + 1 <= max_ticks) break;
  }
  for (double k = 0; k <= decades; k += every) {
    const double v = std::pow(base, k);
    ticks.push_back({v, Label(v, bytes)});
  }
  return ticks;
}

}  // namespace memframe::viewer
