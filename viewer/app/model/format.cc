#include "format.h"

#include <cstdio>

#include "memframe/analysis/size_histogram.h"

namespace memframe::viewer {

namespace {

// Three significant digits, like the CLI report, so the two agree.
std::string Scaled(double value, const char* unit) {
  char buf[32];
  if (value >= 100)
    std::snprintf(buf, sizeof buf, "%.0f %s", value, unit);
  else if (value >= 10)
    std::snprintf(buf, sizeof buf, "%.1f %s", value, unit);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", value, unit);
  return buf;
}

// Power-of-two bin edges are exact in binary units: "1 KiB", not "1.00 KiB".
std::string ExactBinary(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && bytes % 1024 == 0 && unit < 6) {
    bytes /= 1024;
    unit++;
  }
  return std::to_string(bytes) + " " + kUnits[unit];
}

}  // namespace

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024;
  static const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (v >= 1024 && unit < 5) {
    v /= 1024;
    unit++;
  }
  return Scaled(v, kUnits[unit]);
}

std::string FormatCount(uint64_t count) {
  std::string digits = std::to_string(count);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatDuration(uint64_t ns) {
  if (ns < 1000) return std::to_string(ns) + " ns";
  if (ns < 1000 * 1000) return Scaled(ns / 1e3, "\xC2\xB5s");  // U+00B5 MICRO SIGN
  if (ns < 1000ull * 1000 * 1000) return Scaled(ns / 1e6, "ms");
  return Scaled(ns / 1e9, "s");
}

std::string FormatSizeBin(int bin) {
  using analysis::SizeBinMax;
  using analysis::SizeBinMin;
  if (bin <= 0) return "0 B";
  if (bin == 1) return "1 B";
  if (bin >= 64) return ExactBinary(SizeBinMin(bin)) + " +";
  // "32–63 B" reads better than "32 B–63 B"; above 1 KiB the upper edge is
  // shown as the next power (exclusive), which is exact in binary units.
  if (SizeBinMax(bin) < 1024) return std::to_string(SizeBinMin(bin)) + "\xE2\x80\x93" + std::to_string(SizeBinMax(bin)) + " B";
  return ExactBinary(SizeBinMin(bin)) + " \xE2\x80\x93 " + ExactBinary(SizeBinMax(bin) + 1);
}

}  // namespace memframe::viewer
