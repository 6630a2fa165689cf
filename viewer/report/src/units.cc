#include "memframe/report/units.h"

#include <cmath>
#include <cstdio>
#include <iterator>

#include "memframe/analysis/size_histogram.h"

namespace memframe::analysis {

namespace {

// Three significant digits.
std::string Scaled(double value, const char* unit) {
  char buf[32];
  snprintf(buf, sizeof(buf), value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value, unit);
  return buf;
}

}  // namespace

std::string FormatCount(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int ScaleToBinaryUnit(double* value) {
  int unit = 0;
  while (*value >= 1024 && unit + 1 < static_cast<int>(std::size(kBinaryUnits))) {
    *value /= 1024;
    ++unit;
  }
  return unit;
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  const int unit = ScaleToBinaryUnit(&value);
  return Scaled(value, kBinaryUnits[unit]);
}

std::string FormatBytesExact(double bytes) {
  const int unit = ScaleToBinaryUnit(&bytes);
  char buf[32];
  snprintf(buf, sizeof buf, "%.3f", bytes);
  std::string text = buf;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + " " + kBinaryUnits[unit];
}

std::string FormatSizeBin(int bin) {
  if (bin <= 0) return "0 B";
  if (bin == 1) return "1 B";
  const auto min = static_cast<double>(SizeBinMin(bin));
  if (bin >= kSizeBins - 1) return FormatBytesExact(min) + " +";
  // "32–63 B" reads better than "32 B–63 B".
  if (SizeBinMax(bin) < 1024) return std::to_string(SizeBinMin(bin)) + "\xE2\x80\x93" + std::to_string(SizeBinMax(bin)) + " B";
  return FormatBytesExact(min) + " \xE2\x80\x93 " + FormatBytesExact(static_cast<double>(SizeBinMax(bin)) + 1);
}

std::string FormatDuration(uint64_t ns) {
  if (ns < 1000) return std::to_string(ns) + " ns";
  if (ns < 1000000) return Scaled(static_cast<double>(ns) / 1e3, "\xC2\xB5s");  // U+00B5 MICRO SIGN
  if (ns < 1000000000) return Scaled(static_cast<double>(ns) / 1e6, "ms");
  return Scaled(static_cast<double>(ns) / 1e9, "s");
}

std::string FormatPercent(double fraction) {
  char buf[16];
  snprintf(buf, sizeof(buf), "%.0f%%", fraction * 100);
  return buf;
}

std::string FormatRate(double value) {
  if (value == 0) return "0";
  if (value >= 999.5) return FormatCount(static_cast<uint64_t>(std::llround(value)));
  char buf[32];
  snprintf(buf, sizeof(buf), value < 9.995 ? "%.2f" : value < 99.95 ? "%.1f" : "%.0f", value);
  return buf;
}

std::string FormatByteRate(double bytes) {
  if (bytes >= 1023.5) return FormatBytes(static_cast<uint64_t>(std::llround(bytes)));
  return FormatRate(bytes) + " B";
}

namespace {
std::string Signed(double value, std::string (*format)(double)) {
  return (value < 0 ? "-" : "+") + format(std::fabs(value));
}
}  // namespace

std::string FormatSignedRate(double value) { return Signed(value, FormatRate); }
std::string FormatSignedByteRate(double bytes) { return Signed(bytes, FormatByteRate); }

std::string FormatShare(uint64_t part, uint64_t whole) {
  return FormatPercent(whole ? static_cast<double>(part) / static_cast<double>(whole) : 0);
}

std::string Plural(uint64_t count, const std::string& noun) {
  return FormatCount(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace memframe::analysis
