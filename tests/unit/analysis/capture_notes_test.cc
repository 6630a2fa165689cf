// The notes on what a capture's figures miss, as the summary prints them
// (the viewer's header shows the same sentences: capture_notes.h).
#include "memframe/report/capture_notes.h"

#include <gtest/gtest.h>

#include <sstream>

#include "memframe/report/report.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::Free;
using testing::FrameEnd;
using testing::TempPath;
using testing::TestCapture;

TEST(CaptureNotesTest, ABlockReusedWithoutItsFreeAndAnUnknownFree) {
  TestCapture tc;
  tc.Stack(1, {0x1234});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Thread(7, "main");
  // 0x5000 is handed out twice with no free between (a free memframe did
  // not see), and 0x9000 is freed without ever being allocated.
  tc.Batch(7, {Alloc(10, 0, 0x5000, 64, 1, 1), Alloc(11, 0, 0x5000, 32, 1, 1), Free(12, 0, 0x9000, 1),
               FrameEnd(13, 0)});
  tc.End();
  tc.Recorder(true, 0);
  TempPath path("capture_notes");
  ASSERT_TRUE(tc.Write(path.path()));
  std::ostringstream out, err;
  ASSERT_EQ(PrintRunSummary(path.path(), out, err), 0) << err.str();
  EXPECT_NE(out.str().find("note: 1 free of an unknown block was ignored\n"
                           "note: 1 allocation reused a block whose free was not recorded\n"),
            std::string::npos)
      << out.str();
}

// A game that starts a thousand helper processes under the agent gets one
// line about them, not a thousand.
TEST(CaptureNotesTest, ManyOtherProcessesAreOneLine) {
  Capture capture;
  HeapAnalysis heap;
  for (uint32_t i = 0; i < 1000; ++i) capture.other_streams.push_back({i + 2, 100 + i, "/bin/true", 2});
  std::vector<std::string> notes = CaptureNotes(capture, heap);
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0],
            "1,000 other processes were recorded and not analysed (2,000 events in all): pid 100 /bin/true, pid 101 "
            "/bin/true, pid 102 /bin/true and 997 more");
  capture.other_streams.resize(2);
  notes = CaptureNotes(capture, heap);
  ASSERT_GE(notes.size(), 2u);
  EXPECT_EQ(notes[1], "another process was recorded and not analysed: pid 101 /bin/true (2 events)");
}

}  // namespace
}  // namespace memframe::analysis
