#include "table_sort.h"

#include <gtest/gtest.h>

#include <string>

namespace memframe::viewer {
namespace {

struct Row {
  std::string name;
  uint64_t bytes;
};

const std::vector<Row> kRows = {{"b", 10}, {"a", 30}, {"c", 10}, {"a", 20}};

int CompareRows(uint32_t a, uint32_t b, int column) {
  if (column == 0) return kRows[a].name.compare(kRows[b].name);
  return Compare3(kRows[a].bytes, kRows[b].bytes);
}

TEST(SortedRowOrder, NoKeysKeepsTheOriginalOrder) {
  EXPECT_EQ(SortedRowOrder(4, {}, CompareRows), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(SortedRowOrder, DescendingAndStable) {
  SortKey keys[] = {{1, true}};
  // 30, 20, then the two 10s in their original order.
  EXPECT_EQ(SortedRowOrder(4, keys, CompareRows), (std::vector<uint32_t>{1, 3, 0, 2}));
}

TEST(SortedRowOrder, SecondKeyBreaksTies) {
  SortKey keys[] = {{0, false}, {1, false}};
  EXPECT_EQ(SortedRowOrder(4, keys, CompareRows), (std::vector<uint32_t>{3, 1, 0, 2}));
}

// The game's own rows first (as the reports list them), each part in the
// sort's order: rows 0 and 3 are the game's.
TEST(SortedRowOrder, FirstRowsLeadEachPartSorted) {
  SortKey keys[] = {{1, true}};
  auto game = [](uint32_t row) { return row == 0 || row == 3; };
  EXPECT_EQ(SortedRowOrder(4, keys, CompareRows, game), (std::vector<uint32_t>{3, 0, 1, 2}));
  EXPECT_EQ(SortedRowOrder(4, {}, CompareRows, game), (std::vector<uint32_t>{0, 3, 1, 2}));
}

}  // namespace
}  // namespace memframe::viewer
