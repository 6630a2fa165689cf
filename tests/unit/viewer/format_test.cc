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
}

}  // namespace
}  // namespace memframe::viewer
