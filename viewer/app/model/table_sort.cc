#include "table_sort.h"

#include <algorithm>
#include <numeric>

namespace memframe::viewer {

namespace {

void SortRows(std::vector<uint32_t>& order, std::span<const SortKey> keys, const RowCompare& compare) {
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    for (const SortKey& key : keys) {
      int c = compare(a, b, key.column);
      if (c != 0) return key.descending ? c > 0 : c < 0;
    }
    return false;
  });
}

}  // namespace

std::vector<uint32_t> SortedRowOrder(size_t rows, std::span<const SortKey> keys, const RowCompare& compare,
                                     const RowFirst& first) {
  std::vector<uint32_t> order(rows);
  std::iota(order.begin(), order.end(), 0u);
  if (!keys.empty()) SortRows(order, keys, compare);
  if (first) std::stable_partition(order.begin(), order.end(), first);
  return order;
}

}  // namespace memframe::viewer
