// The flat address map of the live set and the handoff repair
// (memframe/analysis/address_map.h) against std::map: inserts and erases at
// random over a range small enough that probe runs collide and wrap around
// the table, through several growths.
#include "memframe/analysis/address_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>

namespace memframe::analysis {
namespace {

// xorshift: the same sequence on every machine.
struct Random {
  uint64_t seed = 5;
  uint64_t operator()() { return seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed; }
};

// Grow to ~3000 members, then churn, then drain: every probe-run shape.
// Address 0 (the empty slot's mark) is among the addresses.
bool InsertAt(int step, Random& next) {
  return step < 100000 ? next() % 4 != 0 : step < 300000 ? next() % 2 == 0 : next() % 4 == 0;
}
constexpr uint64_t kRange = 6000;

TEST(AddressSet, AgreesWithStdSetThroughGrowthAndWrapAround) {
  AddressSet set;
  std::set<uint64_t> truth;
  Random next;
  uint64_t disagreements = 0;
  for (int round = 0; round < 3; ++round) {
    for (int step = 0; step < 400000; ++step) {
      uint64_t address = 16 * (next() % kRange);
      bool insert = InsertAt(step, next);
      bool got = insert ? set.Insert(address) : set.Erase(address);
      bool want = insert ? truth.insert(address).second : truth.erase(address) == 1;
      disagreements += got != want;
    }
    EXPECT_EQ(set.size(), truth.size());
  }
  EXPECT_EQ(disagreements, 0u);
  for (uint64_t address : truth) EXPECT_FALSE(set.Insert(address)) << address;  // every member still found
}

TEST(AddressMap, AgreesWithStdMapThroughGrowthAndWrapAround) {
  AddressMap<uint64_t> map;
  std::map<uint64_t, uint64_t> truth;
  Random next;
  uint64_t disagreements = 0;
  for (int step = 0; step < 400000; ++step) {
    uint64_t address = 16 * (next() % kRange);
    uint64_t value = next();
    if (InsertAt(step, next)) {
      auto [at, added] = map.TryEmplace(address, value);
      auto [want, want_added] = truth.try_emplace(address, value);
      disagreements += added != want_added || *at != want->second;
      if (!added) *at = want->second = value;  // replacing through the pointer sticks
    } else {
      uint64_t removed = 0;
      bool got = map.Erase(address, &removed);
      auto want = truth.find(address);
      disagreements += got != (want != truth.end()) || (got && removed != want->second);
      if (want != truth.end()) truth.erase(want);
    }
    if (step % 1000 == 0) {
      const uint64_t* found = map.Find(address);
      auto want = truth.find(address);
      disagreements += (found != nullptr) != (want != truth.end()) || (found && *found != want->second);
    }
  }
  EXPECT_EQ(disagreements, 0u);
  // Iteration visits every entry once, address 0 included.
  std::map<uint64_t, uint64_t> seen(map.begin(), map.end());
  EXPECT_EQ(map.size(), truth.size());
  EXPECT_EQ(seen, truth);
}

TEST(AddressMap, AddressZeroIsAnOrdinaryKey) {
  AddressMap<int> map;
  EXPECT_EQ(map.Find(0), nullptr);
  EXPECT_EQ(map.begin(), map.end());
  EXPECT_TRUE(map.TryEmplace(0, 7).second);
  EXPECT_FALSE(map.TryEmplace(0, 8).second);
  ASSERT_NE(map.Find(0), nullptr);
  EXPECT_EQ(*map.Find(0), 7);
  EXPECT_EQ(map.size(), 1u);
  int entries = 0;
  for (const auto& [address, value] : map) entries += address == 0 && value == 7;
  EXPECT_EQ(entries, 1);
  int removed = 0;
  EXPECT_TRUE(map.Erase(0, &removed));
  EXPECT_EQ(removed, 7);
  EXPECT_FALSE(map.Erase(0));
  EXPECT_EQ(map.size(), 0u);
}

}  // namespace
}  // namespace memframe::analysis
