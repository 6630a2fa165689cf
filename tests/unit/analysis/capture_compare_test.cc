// What --fail-on-regression calls a regression, on comparisons made by hand.
#include <gtest/gtest.h>

#include "memframe/analysis/capture_compare.h"

namespace memframe::analysis {
namespace {

CaptureComparison Steady(uint64_t base_allocations, uint64_t next_allocations) {
  CaptureComparison c;
  c.base_steady_frames = 100;
  c.next_steady_frames = 50;  // per frame: NEW's figures count double
  c.base_total = {base_allocations, 1000};
  c.next_total = {next_allocations, 500};
  return c;
}

TEST(CaptureCompare, TotalsAreComparedPerSteadyFrame) {
  EXPECT_TRUE(FindRegressions(Steady(100, 55), 10).empty());  // 1.0 -> 1.1 per frame: 10%, not more
  const std::vector<std::string> grown = FindRegressions(Steady(100, 56), 10);
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_EQ(grown[0], "steady allocations per frame grew 12%");
}

TEST(CaptureCompare, ANewGameSiteIsARegressionAndAGoneOneIsNot) {
  CaptureComparison c = Steady(100, 50);
  SiteComparison added;
  added.change = SiteComparison::Change::kNew;
  added.name = "EmitParticleTrail(int)";
  added.module_class = ModuleClass::kGame;
  added.next = {1, 72};
  SiteComparison driver = added;
  driver.module_class = ModuleClass::kDriver;
  driver.name = "swrast_dri.so";
  SiteComparison gone = added;
  gone.change = SiteComparison::Change::kGone;
  gone.base = {10, 100};
  gone.next = {};
  c.sites = {added, driver, gone};
  EXPECT_EQ(FindRegressions(c, 1000), (std::vector<std::string>{"new game site EmitParticleTrail(int)"}));
}

TEST(CaptureCompare, LeakGrowthCounts) {
  CaptureComparison c = Steady(100, 50);
  c.base_leaked_bytes = 0;
  c.next_leaked_bytes = 1;
  EXPECT_EQ(FindRegressions(c, 50), (std::vector<std::string>{"leaked bytes grew from 0"}));
}

}  // namespace
}  // namespace memframe::analysis
