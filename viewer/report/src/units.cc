#include "memframe/report/units.h"

#include <cmath>
#include <cstdio>
#include <iterator>

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

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return Scaled(value, kUnits[unit]);
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
