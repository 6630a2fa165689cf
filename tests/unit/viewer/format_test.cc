#include "format.h"

#include <gtest/gtest.h>

namespace memframe::viewer {
namespace {

TEST(Format, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(96), "96 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(12288), "12.0 KiB");
  EXPECT_EQ(FormatBytes(9447424), "9.01 MiB");
}

TEST(Format, CountAndDuration) {
  EXPECT_EQ(FormatCount(47484), "47,484");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000000), "1,000,000");
  EXPECT_EQ(FormatDuration(441), "441 ns");
  EXPECT_EQ(FormatDuration(1200), "1.20 \xC2\xB5s");
  EXPECT_EQ(FormatDuration(5530000), "5.53 ms");
}

TEST(Format, SizeBins) {
  EXPECT_EQ(FormatSizeBin(0), "0 B");
  EXPECT_EQ(FormatSizeBin(1), "1 B");
  EXPECT_EQ(FormatSizeBin(6), "32\xE2\x80\x93" "63 B");
  EXPECT_EQ(FormatSizeBin(16), "32 KiB \xE2\x80\x93 64 KiB");
  EXPECT_EQ(FormatSizeBin(11), "1 KiB \xE2\x80\x93 2 KiB");
  EXPECT_EQ(FormatSizeBin(64), "8 EiB +");
}

// One ladder of binary units, spelled KiB, MiB, ... everywhere.
TEST(Format, BinaryUnitLadder) {
  double value = 3.0 * 1024 * 1024;
  EXPECT_EQ(analysis::ScaleToBinaryUnit(&value), 2);
  EXPECT_EQ(value, 3.0);
  EXPECT_STREQ(analysis::kBinaryUnits[2], "MiB");
  EXPECT_EQ(FormatBytes(3u << 20), "3.00 MiB");
  EXPECT_EQ(analysis::FormatBytesExact(3u << 20), "3 MiB");
}

}  // namespace
}  // namespace memframe::viewer
