#include "text_table.h"

#include <algorithm>
#include <cstdio>

namespace memframe::analysis {

std::string FormatCount(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

std::string Scaled(double value, const char* unit) {
  char buf[32];
  snprintf(buf, sizeof(buf), value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value, unit);
  return buf;
}

}  // namespace

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
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
  if (ns < 1000000) return Scaled(static_cast<double>(ns) / 1e3, "us");
  if (ns < 1000000000) return Scaled(static_cast<double>(ns) / 1e6, "ms");
  return Scaled(static_cast<double>(ns) / 1e9, "s");
}

std::string FormatPercent(double fraction) {
  char buf[16];
  snprintf(buf, sizeof(buf), "%.0f%%", fraction * 100);
  return buf;
}

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::Omit(const std::string& title) {
  for (Column& c : columns_)
    if (c.title == title) c.omitted = true;
}

void TextTable::Write(std::ostream& out, const std::string& indent) const {
  std::vector<size_t> width(columns_.size());
  size_t last_shown = 0;
  for (size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].title.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
    if (!columns_[c].omitted) last_shown = c;
  }
  auto write_row = [&](const std::vector<std::string>& cells) {
    std::string line = indent;
    bool first = true;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (columns_[c].omitted) continue;
      const bool last = c == last_shown;
      const size_t pad = width[c] - std::min(width[c], cells[c].size());
      if (!first) line += "  ";
      first = false;
      if (columns_[c].left) {
        line += cells[c];
        if (!last) line.append(pad, ' ');
      } else {
        line.append(pad, ' ');
        line += cells[c];
      }
    }
    // An empty last cell would leave the separator dangling.
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  };
  std::vector<std::string> titles;
  for (const Column& c : columns_) titles.push_back(c.title);
  write_row(titles);
  for (const auto& row : rows_) write_row(row);
}

}  // namespace memframe::analysis
