// The name column of a call-site table: each name cut in the middle to the
// column (elide.h), and the rows drawn together cut apart from each other,
// so that two different sites never read the same; the whole name in a
// tooltip. The rows drawn in one frame are cut together in the next (the
// clipper draws them one by one), so a scroll or a resize settles within a
// frame.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace memframe::viewer {

class NameColumn {
 public:
  // Before the table's rows, every frame.
  void BeginFrame();
  // In a row's name cell: `name` as it fits the rest of the cell.
  const std::string& Cut(const std::string& name);

 private:
  float width_ = -1;                  // of the cells, measured while drawing
  float cut_width_ = -1;              // what cut_ was made for
  std::vector<std::string> drawing_;  // the names drawn this frame
  std::vector<std::string> cut_for_;  // the names cut_ was made for
  std::unordered_map<std::string, std::string> cut_;
};

}  // namespace memframe::viewer
