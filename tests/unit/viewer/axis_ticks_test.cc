// Value-axis ticks: round binary values for bytes, 1-2-5 steps for counts.
#include "axis_ticks.h"
#include "memframe/report/units.h"

#include <gtest/gtest.h>

namespace memframe::viewer {
namespace {

std::vector<std::string> Labels(const std::vector<AxisTick>& ticks) {
  std::vector<std::string> labels;
  for (const AxisTick& t : ticks) labels.push_back(t.label);
  return labels;
}

TEST(AxisTicks, LinearBytesStepByPowersOfTwo) {
  // 1.3 MiB in 4 ticks: a 512 KiB step (256 KiB would make 5).
  EXPECT_EQ(Labels(LinearTicks(1.3 * 1024 * 1024, true)), (std::vector<std::string>{"512 KiB", "1 MiB"}));
  EXPECT_EQ(Labels(LinearTicks(1000 * 1024, true)), (std::vector<std::string>{"256 KiB", "512 KiB", "768 KiB"}));
  EXPECT_EQ(Labels(LinearTicks(5 * 1024 * 1024, true, 8)),
            (std::vector<std::string>{"1 MiB", "2 MiB", "3 MiB", "4 MiB", "5 MiB"}));
  EXPECT_EQ(Labels(LinearTicks(1.3 * 1024 * 1024, true, 6)),
            (std::vector<std::string>{"256 KiB", "512 KiB", "768 KiB", "1 MiB", "1.25 MiB"}));
  EXPECT_EQ(Labels(LinearTicks(3000, true)), (std::vector<std::string>{"1 KiB", "2 KiB"}));
  EXPECT_TRUE(LinearTicks(0, true).empty());
}

TEST(AxisTicks, LinearCountsStepByOneTwoFive) {
  EXPECT_EQ(Labels(LinearTicks(4500, false)), (std::vector<std::string>{"2,000", "4,000"}));
  EXPECT_EQ(Labels(LinearTicks(100, false)), (std::vector<std::string>{"50", "100"}));
  EXPECT_EQ(Labels(LinearTicks(3, false)), (std::vector<std::string>{"1", "2", "3"}));
}

TEST(AxisTicks, LogBytesAtPowersOfTwo) {
  // Up to 40 MiB (2^25.3): 2^0 .. 2^25 every 2^5.
  EXPECT_EQ(Labels(LogTicks(40.0 * 1024 * 1024, true)),
            (std::vector<std::string>{"1 B", "32 B", "1 KiB", "32 KiB", "1 MiB", "32 MiB"}));
  EXPECT_EQ(Labels(LogTicks(100, true)), (std::vector<std::string>{"1 B", "4 B", "16 B", "64 B"}));
  for (const AxisTick& t : LogTicks(1e12, true)) EXPECT_EQ(t.label.find('.'), std::string::npos) << t.label;
}

TEST(AxisTicks, LogCountsAtPowersOfTen) {
  EXPECT_EQ(Labels(LogTicks(5000, false)), (std::vector<std::string>{"1", "10", "100", "1,000"}));
  EXPECT_EQ(Labels(LogTicks(1e9, false)), (std::vector<std::string>{"1", "100", "10,000", "1,000,000", "100,000,000"}));
}

TEST(AxisTicks, BinaryTickLabels) {
  EXPECT_EQ(analysis::FormatBytesExact(0), "0 B");
  EXPECT_EQ(analysis::FormatBytesExact(1023), "1023 B");
  EXPECT_EQ(analysis::FormatBytesExact(1536), "1.5 KiB");
  EXPECT_EQ(analysis::FormatBytesExact(4.0 * 1024 * 1024 * 1024), "4 GiB");
}

}  // namespace
}  // namespace memframe::viewer
