// Row order of a sortable table. Tables sort an index vector, never their
// rows, so the selection (a row id) survives a re-sort.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace memframe::viewer {

struct SortKey {
  int column = 0;
  bool descending = false;
};

// compare(a, b, column) < 0 when row a comes before row b in ascending order.
using RowCompare = std::function<int(uint32_t a, uint32_t b, int column)>;

// Which rows come before all others whatever the sort (the game's own sites,
// as the reports list them); null: none.
using RowFirst = std::function<bool(uint32_t row)>;

// Row indices 0..rows-1 ordered by `keys` (first key first); rows equal on
// every key keep their original order. With `first`, the rows it holds for
// come first, each part in that order.
std::vector<uint32_t> SortedRowOrder(size_t rows, std::span<const SortKey> keys, const RowCompare& compare,
                                     const RowFirst& first = nullptr);

// Three-way comparison helper for the compare callbacks.
template <typename T>
int Compare3(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace memframe::viewer
