#include "selection.h"

#include <gtest/gtest.h>

namespace memframe::viewer {
namespace {

TEST(Selection, FocusFollowsTheLastPick) {
  Selection s;
  analysis::FrameRange all{0, 99};
  EXPECT_EQ(s.FocusRange(all).size(), 100u);
  s.SelectRangeA({10, 19});
  EXPECT_EQ(s.FocusRange(all).from, 10u);
  s.SelectFrame(42);
  EXPECT_EQ(s.FocusRange(all).from, 42u);
  EXPECT_EQ(s.FocusRange(all).to, 42u);
  EXPECT_TRUE(s.range_a);  // a frame click keeps range A for a comparison
  s.SelectRangeB({200, 300});
  EXPECT_EQ(s.FocusRange(all).from, 99u);  // clipped to the capture
  EXPECT_EQ(s.Describe(all), "Range B: frame 99");
}

}  // namespace
}  // namespace memframe::viewer
