#include "format.h"

#include <cstdio>

#include "memframe/analysis/size_histogram.h"

namespace memframe::viewer {

namespace {

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
