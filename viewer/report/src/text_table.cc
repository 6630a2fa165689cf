#include "text_table.h"

#include <algorithm>
#include <cstdio>

namespace memframe::analysis {

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
