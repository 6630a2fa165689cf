// The viewer's first picture from the summary index (CAPTURE.mfi): the first
// open reads the capture whole and writes the index; the next one draws the
// timeline from the index alone (--first-picture stops there), and its
// figures are the capture's, exactly those of the whole load. A stale index
// is never used.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "test_capture.h"

namespace memframe {
namespace {

using json = nlohmann::json;
namespace tc = testing;  // the synthetic capture's writer (test_capture.h)

constexpr int kTimeoutSeconds = 60;
constexpr uint32_t kFrames = 40;
constexpr uint64_t kBlock = 96;         // every frame's short-lived blocks
constexpr uint64_t kKeptBlock = 4096;   // one block each frame keeps to the end
constexpr uint32_t kLoadFrame = 20;     // allocates kLoadBlocks more

constexpr uint32_t kLoadBlocks = 2000;

// Frame f allocates f % 5 + 1 blocks of kBlock bytes and frees them, and
// keeps one kKeptBlock block; kLoadFrame loads kLoadBlocks blocks more.
uint64_t AllocationsIn(uint32_t f) { return f % 5 + 1 + 1 + (f == kLoadFrame ? kLoadBlocks : 0); }
uint64_t BytesIn(uint32_t f) { return (f % 5 + 1) * kBlock + kKeptBlock + (f == kLoadFrame ? kLoadBlocks * kBlock : 0); }

tc::TestCapture GameCapture(uint32_t frames = kFrames) {
  tc::TestCapture capture;
  capture.Stack(1, {0x401000});
  capture.Stack(2, {0x402000});
  capture.Stack(3, {0x403000});
  capture.Marker(1, "glfwSwapBuffers");
  capture.Thread(500, "main");
  std::vector<tc::TestEvent> events;
  uint64_t t = 1000;
  uint64_t kept = 0x900000, loaded = 0x5000000;
  for (uint32_t f = 0; f < frames; ++f) {
    for (uint32_t i = 0; i <= f % 5; ++i) events.push_back(tc::Alloc(++t, f, 0x10000 + i * 0x100, kBlock, 1));
    for (uint32_t i = 0; i <= f % 5; ++i) events.push_back(tc::Free(++t, f, 0x10000 + i * 0x100));
    events.push_back(tc::Alloc(++t, f, kept, kKeptBlock, 2));
    kept += 0x2000;
    if (f == kLoadFrame)
      for (uint32_t i = 0; i < kLoadBlocks; ++i, loaded += 0x100) events.push_back(tc::Alloc(++t, f, loaded, kBlock, 3));
    events.push_back(tc::FrameEnd(++t, f));
  }
  capture.Batch(500, events);
  capture.End();
  capture.Recorder(true, 0);
  return capture;
}

json Timeline(const std::string& capture, bool first_picture) {
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture, "--dump-view-data", "timeline"};
  if (first_picture) argv.push_back("--first-picture");
  e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
  EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
  json data = e2e::ParseJsonOrDiscard(r.standard_output);
  EXPECT_FALSE(data.is_discarded()) << r.standard_output;
  return data;
}

TEST(ViewerFirstPicture, FromTheIndexEqualsTheWholeLoad) {
  e2e::ScratchDirectory scratch("memframe-viewer-first-picture");
  const std::string capture = (scratch.path() / "game.mfc").string();
  const std::string index = capture + ".mfi";
  ASSERT_TRUE(GameCapture().Write(capture));

  // No index yet: the first picture is the whole load, which writes one.
  ASSERT_FALSE(std::filesystem::exists(index));
  json first = Timeline(capture, true);
  EXPECT_EQ(first["preview"], false);
  ASSERT_TRUE(std::filesystem::exists(index));

  json preview = Timeline(capture, true);
  EXPECT_EQ(preview["preview"], true);
  json whole = Timeline(capture, false);
  EXPECT_EQ(whole["preview"], false);

  // The truth: every frame's allocations, bytes and live bytes.
  ASSERT_EQ(preview["frames"].size(), kFrames) << preview["frames"];
  uint64_t live = 0;
  for (uint32_t f = 0; f < kFrames; ++f) {
    const json& row = preview["frames"][f];
    live += kKeptBlock + (f == kLoadFrame ? kLoadBlocks * kBlock : 0);
    EXPECT_EQ(row["frame"], f);
    EXPECT_EQ(row["allocations"], AllocationsIn(f)) << "frame " << f;
    EXPECT_EQ(row["bytes"], BytesIn(f)) << "frame " << f;
    EXPECT_EQ(row["frees"], f % 5 + 1) << "frame " << f;
    EXPECT_EQ(row["live_bytes"], live) << "frame " << f;
  }
  EXPECT_EQ(preview["header"]["allocations"], whole["header"]["allocations"]);
  // Exactly the whole load's figures: the frames, the spikes, the phases
  // (the load is one), the header.
  for (const char* key : {"frames", "frame_count", "frames_rendered", "spikes", "phases", "header", "time_scale_ns"})
    EXPECT_EQ(preview[key], whole[key]) << key;
  bool has_load = false;
  for (const json& p : preview["phases"]) has_load |= p["phase"] == "load";
  EXPECT_TRUE(has_load) << preview["phases"];
  // The live graph of the preview is every site's total: per frame, the
  // sum of the whole load's classes (mapped bytes need the events).
  ASSERT_EQ(preview["live"]["stacked_by"], "total");
  ASSERT_EQ(preview["live"]["frames"].size(), whole["live"]["frames"].size());
  for (size_t row = 0; row < whole["live"]["frames"].size(); ++row) {
    const json& all = preview["live"]["frames"][row]["groups"]["all"];
    for (const char* figure : {"live_bytes", "allocations", "frees", "bytes_allocated", "bytes_freed"}) {
      uint64_t sum = 0;
      for (const auto& [name, cls] : whole["live"]["frames"][row]["classes"].items()) sum += cls[figure].get<uint64_t>();
      EXPECT_EQ(all[figure], sum) << "row " << row << " " << figure;
    }
  }
  EXPECT_EQ(preview["live"]["churn_scale"], whole["live"]["churn_scale"]);

  // Another capture in its place: the index is stale and never used.
  ASSERT_TRUE(GameCapture(kFrames - 1).Write(capture));
  json stale = Timeline(capture, true);
  EXPECT_EQ(stale["preview"], false);
  EXPECT_EQ(stale["frame_count"], kFrames - 1);
}

TEST(ViewerFirstPicture, OnlyTheTimelineHasOne) {
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, "x.mfc", "--dump-view-data", "hidden", "--first-picture"};
  EXPECT_EQ(e2e::RunCommand(argv, kTimeoutSeconds).exit_code, 2);
}

}  // namespace
}  // namespace memframe
