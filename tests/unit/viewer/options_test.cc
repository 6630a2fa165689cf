#include "options.h"

#include <gtest/gtest.h>

#include <vector>

namespace memframe::viewer {
namespace {

bool Parse(std::vector<const char*> args, ViewerOptions* o, std::string* error) {
  args.insert(args.begin(), "memframe-viewer");
  return ParseViewerOptions(static_cast<int>(args.size()), args.data(), o, error);
}

TEST(ViewerOptions, Screenshot) {
  ViewerOptions o;
  std::string error;
  ASSERT_TRUE(Parse({"c.mfc", "--screenshot", "x.png", "--view", "hidden", "--range", "10:20", "--size", "800x600"}, &o,
                    &error))
      << error;
  EXPECT_EQ(o.capture_path, "c.mfc");
  EXPECT_EQ(o.screenshot_path, "x.png");
  EXPECT_EQ(o.view, "hidden");
  ASSERT_TRUE(o.range);
  EXPECT_EQ(o.range->from, 10u);
  EXPECT_EQ(o.range->to, 20u);
  EXPECT_EQ(o.width, 800);
  EXPECT_EQ(o.height, 600);
}

TEST(ViewerOptions, Rejects) {
  std::string error;
  ViewerOptions o1, o2, o3, o4, o5;
  EXPECT_FALSE(Parse({"c.mfc", "--frame", "12x"}, &o1, &error));
  EXPECT_FALSE(Parse({"c.mfc", "--range", "20:10"}, &o2, &error));
  EXPECT_FALSE(Parse({"c.mfc", "--screenshot", "x.png"}, &o3, &error));  // no --view
  EXPECT_NE(error.find("--view"), std::string::npos);
  EXPECT_FALSE(Parse({"--dump-view-data", "leaks"}, &o4, &error));  // no capture
  EXPECT_FALSE(Parse({"c.mfc", "--size", "99999x2"}, &o5, &error));
}

}  // namespace
}  // namespace memframe::viewer
