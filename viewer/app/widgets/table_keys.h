// Keyboard navigation of a table (viewer/app/README.md, "Table keys"):
// Up / Down, Page Up / Page Down, Home / End move the selected row while
// the pointer is over the table or it has focus (and no text field is being
// typed in); Enter shows the selected row's stack, Escape hides it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <imgui.h>

namespace memframe::viewer {

// The display index of the first row of `order` that `is_selected`; -1 when none.
template <typename IsSelected>
int DisplayIndex(const std::vector<uint32_t>& order, IsSelected is_selected) {
  for (size_t i = 0; i < order.size(); ++i)
    if (is_selected(order[i])) return static_cast<int>(i);
  return -1;
}

class TableKeys {
 public:
  // Call inside the table's window, before its rows. `current`: the
  // selected row's display index (-1: none); returns the display index the
  // keys moved the selection to.
  std::optional<int> Moved(int current, int rows);
  // Call with the clipper before its first Step(): the row moved to is drawn
  // even when off screen, so that AfterRow can scroll to it.
  void Reveal(ImGuiListClipper& clipper) const;
  // Call after drawing row `display_index`: scrolls it into view when the
  // keys just moved there.
  void AfterRow(int display_index);

  // The stack panel below the table: shown unless Escape hid it; a click or
  // Enter shows it again.
  bool stack_open() const { return stack_open_; }
  void OpenStack() { stack_open_ = true; }

 private:
  int moved_to_ = -1;
  bool stack_open_ = true;
};

}  // namespace memframe::viewer
