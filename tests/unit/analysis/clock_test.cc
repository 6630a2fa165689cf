#include "memframe/analysis/clock.h"

#include <gtest/gtest.h>

namespace memframe::analysis {
namespace {

TEST(Clock, RateComesFromTheFirstAndLastPair) {
  Clock clock;
  clock.AddPair(1000, 5'000'000);
  clock.AddPair(2000, 5'000'300);  // a jittery middle pair does not matter
  clock.AddPair(4000, 5'001'000);  // 3000 ticks = 1000 ns: a 3 GHz TSC
  ASSERT_TRUE(clock.calibrated());
  EXPECT_DOUBLE_EQ(clock.ns_per_tick(), 1.0 / 3.0);
  EXPECT_EQ(clock.ToNs(1000), 5'000'000);
  EXPECT_EQ(clock.ToNs(4000), 5'001'000);
  EXPECT_EQ(clock.ToNs(1300), 5'000'100);
  EXPECT_EQ(clock.ToNs(700), 4'999'900);  // before the first pair
  EXPECT_EQ(clock.DurationNs(30), 10u);
  EXPECT_EQ(clock.DurationNs(31), 10u);
  EXPECT_EQ(clock.DurationNs(32), 11u);
}

TEST(Clock, PairsInAnyOrder) {
  Clock clock;
  clock.AddPair(4000, 3000);
  clock.AddPair(2000, 2000);
  EXPECT_DOUBLE_EQ(clock.ns_per_tick(), 0.5);
  EXPECT_EQ(clock.ToNs(3000), 2500);
}

TEST(Clock, LargeTickValuesKeepNanosecondPrecision) {
  Clock clock;
  const uint64_t base = 9'000'000'000'000'000'000ull;
  clock.AddPair(base, 1'000'000'000'000ull);
  clock.AddPair(base + 2'000'000'000ull, 1'001'000'000'000ull);  // 2 GHz
  EXPECT_EQ(clock.ToNs(base + 3), 1'000'000'000'002);  // 1.5 ns rounds to 2
  EXPECT_EQ(clock.ToNs(base + 2'000'000'002ull), 1'001'000'000'001);
}

TEST(Clock, WithOnePairTicksAreNanoseconds) {
  Clock clock;
  clock.AddPair(500, 10'000);
  EXPECT_FALSE(clock.calibrated());
  EXPECT_EQ(clock.ToNs(600), 10'100);
  EXPECT_EQ(clock.DurationNs(42), 42u);
  Clock empty;
  EXPECT_EQ(empty.ToNs(7), 7);
}

}  // namespace
}  // namespace memframe::analysis
