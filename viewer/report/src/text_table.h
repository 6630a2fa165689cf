// Plain-text formatting for the reports: aligned tables and readable units.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "memframe/report/units.h"

namespace memframe::analysis {

// Columns are right-aligned (numbers) unless marked left; the last column
// is never padded so long function names do not push trailing spaces.
class TextTable {
 public:
  struct Column {
    std::string title;
    bool left = false;
    bool omitted = false;
  };
  explicit TextTable(std::vector<Column> columns);
  void AddRow(std::vector<std::string> cells);
  // Leaves out the column titled `title` (a column that says nothing for
  // this capture, such as the thread of a one-thread program).
  void Omit(const std::string& title);
  void Write(std::ostream& out, const std::string& indent = "") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace memframe::analysis
