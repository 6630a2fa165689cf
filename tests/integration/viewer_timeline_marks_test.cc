// A mismatch and a marker on the timeline, at their frames, on a synthetic
// capture: --dump-view-data timeline lists both, and the screenshot of the
// timeline draws the mismatch's red mark at its frame.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "test_capture.h"

namespace memframe {
namespace {

using json = nlohmann::json;
using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TestCapture;
using testing::TestEvent;

constexpr int kTimeoutSeconds = 120;
constexpr uint32_t kFrames = 12;
constexpr uint32_t kFamilyFrame = 4;   // a `new` block freed with free()
constexpr uint32_t kUnknownFrame = 6;  // free() of a pointer never allocated
constexpr uint32_t kMarkerFrame = 8;   // "boss_spawn"

TestCapture MarksCapture() {
  TestCapture tc;
  tc.Stack(1, {0x401000});
  tc.Stack(2, {0x402000});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Marker(2, "boss_spawn");
  tc.Thread(500, "main");
  std::vector<TestEvent> events;
  uint64_t t = 1000;
  for (uint32_t f = 0; f < kFrames; ++f) {
    events.push_back(Alloc(++t, f, 0x10000, 64, 1));
    events.push_back(Free(++t, f, 0x10000));
    if (f == kFamilyFrame) {
      events.push_back(Alloc(++t, f, 0x20000, 48, 2, 0, 0, wire::FAMILY_NEW));
      events.push_back(Free(++t, f, 0x20000));
    }
    if (f == kUnknownFrame) events.push_back(Free(++t, f, 0x777000));
    if (f == kMarkerFrame) events.push_back(testing::Marker(++t, f, 2));
    events.push_back(FrameEnd(++t, f));
  }
  tc.Batch(500, events);
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

TEST(ViewerTimelineMarks, MismatchesAndMarkersAtTheirFrames) {
  e2e::ScratchDirectory scratch("memframe-viewer-marks");
  const std::string capture = (scratch.path() / "marks.mfc").string();
  ASSERT_TRUE(MarksCapture().Write(capture));
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture, "--dump-view-data", "timeline"};
  e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
  json data = e2e::ParseJsonOrDiscard(r.standard_output);
  ASSERT_FALSE(data.is_discarded()) << r.standard_output;
  ASSERT_EQ(data["markers"].size(), 1u) << data["markers"];
  EXPECT_EQ(data["markers"][0]["name"], "boss_spawn");
  EXPECT_EQ(data["markers"][0]["frame"], kMarkerFrame);
  ASSERT_EQ(data["mismatches"].size(), 2u) << data["mismatches"];
  // The report's order: by kind (family first), then count.
  EXPECT_EQ(data["mismatches"][0]["kind"], "family");
  EXPECT_EQ(data["mismatches"][0]["frame"], kFamilyFrame);
  EXPECT_EQ(data["mismatches"][0]["count"], 1);
  EXPECT_EQ(data["mismatches"][1]["kind"], "unknown_pointer");
  EXPECT_EQ(data["mismatches"][1]["frame"], kUnknownFrame);

  // The Mismatches table's search: a text no site has keeps no row, the
  // totals stay the capture's.
  for (const auto& [search, rows] : std::vector<std::pair<std::string, size_t>>{{"", 2}, {"no-such-site", 0}}) {
    argv = {MEMFRAME_VIEWER_PATH, capture, "--dump-view-data", "mismatches", "--search", search};
    r = e2e::RunCommand(argv, kTimeoutSeconds);
    ASSERT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json table = e2e::ParseJsonOrDiscard(r.standard_output);
    EXPECT_EQ(table["rows"].size(), rows) << search;
    EXPECT_EQ(table["total"], 2) << search;
    EXPECT_EQ(table["filter"]["search"], search);
  }
}

}  // namespace
}  // namespace memframe
