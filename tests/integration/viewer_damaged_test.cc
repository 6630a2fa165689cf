// The viewer on a damaged capture draws what came before the damage, warns
// (on stderr), and exits 1 as `memframe report` does, for a screenshot too: a script
// must not take the picture of half a capture for the whole of it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "test_capture.h"

namespace memframe {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::TestCapture;

constexpr int kTimeoutSeconds = 120;

TEST(ViewerDamagedCapture, AScreenshotExitsOneAndSaysWhy) {
  e2e::ScratchDirectory scratch("memframe-viewer-damaged");
  const std::string whole = (scratch.path() / "whole.mfc").string();
  TestCapture tc;
  tc.Marker(1, "glfwSwapBuffers");
  tc.Batch(1, {Alloc(10, 0, 0x100, 64, 0), FrameEnd(20, 0), Alloc(30, 1, 0x200, 64, 0), FrameEnd(40, 1)});
  tc.End();
  tc.Recorder(true, 0);
  ASSERT_TRUE(tc.Write(whole));
  // Its body appended again: damage past the first copy.
  const std::string bytes = e2e::ReadTextFile(whole);
  const std::string damaged = (scratch.path() / "damaged.mfc").string();
  {
    FILE* out = fopen(damaged.c_str(), "wb");
    ASSERT_TRUE(out);
    fwrite(bytes.data(), 1, bytes.size(), out);
    fwrite(bytes.data() + 12, 1, bytes.size() - 12, out);
    fclose(out);
  }
  for (const auto& [capture, status] : std::vector<std::pair<std::string, int>>{{whole, 0}, {damaged, 1}}) {
    const std::string png = capture + ".png";
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture, "--screenshot", png, "--view", "timeline",
                                     "--size", "640x400"};
    e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
    EXPECT_EQ(r.exit_code, status) << e2e::ShellCommandLine(argv);
    struct stat st {};
    EXPECT_EQ(stat(png.c_str(), &st), 0) << "the picture is drawn either way";
  }
}

}  // namespace
}  // namespace memframe
