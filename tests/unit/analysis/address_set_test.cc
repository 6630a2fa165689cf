// The handoff repair's flat address set (viewer/analysis/src/address_set.h)
// against std::set: inserts and erases at random over a range small enough
// that probe runs collide and wrap around the table, through several growths.
#include "address_set.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

namespace memframe::analysis {
namespace {

TEST(AddressSet, AgreesWithStdSetThroughGrowthAndWrapAround) {
  AddressSet set;
  std::set<uint64_t> truth;
  uint64_t seed = 5;
  auto next = [&] { return seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed; };
  uint64_t disagreements = 0;
  for (int round = 0; round < 3; ++round) {
    // Grow to ~3000 members, then churn, then drain: every probe-run shape.
    const uint64_t range = 6000;
    for (int step = 0; step < 400000; ++step) {
      uint64_t address = 16 * (1 + next() % range);
      bool insert = step < 100000 ? next() % 4 != 0 : step < 300000 ? next() % 2 == 0 : next() % 4 == 0;
      bool got = insert ? set.Insert(address) : set.Erase(address);
      bool want = insert ? truth.insert(address).second : truth.erase(address) == 1;
      disagreements += got != want;
    }
    EXPECT_EQ(set.size(), truth.size());
  }
  EXPECT_EQ(disagreements, 0u);
  for (uint64_t address : truth) EXPECT_FALSE(set.Insert(address)) << address;  // every member still found
  EXPECT_TRUE(set.Insert(0)) << "0 is never a member";
  EXPECT_FALSE(set.Erase(0));
}

}  // namespace
}  // namespace memframe::analysis
