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
#include "memframe/analysis/summary_index.h"
#include "memframe/analysis/summary_load.h"
#include "test_capture.h"

namespace memframe {
namespace {

using json = nlohmann::json;
namespace tc = testing;  // the synthetic capture's writer (test_capture.h)

constexpr int kTimeoutSeconds = 60;
constexpr uint32_t kFrames = 40;
constexpr uint64_t kBlock = 96;         // every frame's short-lived blocks
constexpr uint64_t kKeptBlock = 4096;   // one block each frame keeps to the end
constexpr uint32_t kLoadFrame = 20;     // the driver allocates kLoadBlocks more
constexpr uint32_t kLoadBlocks = 2000;
constexpr uint32_t kMapFrame = 10, kUnmapFrame = 30;  // the driver maps kMapped bytes between them
constexpr uint64_t kMapped = 1 << 20;
constexpr uint32_t kMarkerFrame = 15;   // "boss_spawn"
constexpr uint32_t kFamilyFrame = 5;    // a `new` block freed with free()
constexpr uint64_t kNewBlock = 48;

// The game's code, and a driver's (module_class.h: the executable is game,
// a dri library driver).
constexpr uint64_t kGameCode = 0x401000, kDriverCode = 0x7f0000001000;

// Frame f allocates f % 5 + 1 blocks of kBlock bytes and frees them, and
// keeps one kKeptBlock block; kLoadFrame loads kLoadBlocks blocks more (the
// driver's), kFamilyFrame a kNewBlock block freed at once.
uint64_t AllocationsIn(uint32_t f) {
  return f % 5 + 1 + 1 + (f == kLoadFrame ? kLoadBlocks : 0) + (f == kFamilyFrame ? 1 : 0);
}
uint64_t BytesIn(uint32_t f) {
  return (f % 5 + 1) * kBlock + kKeptBlock + (f == kLoadFrame ? kLoadBlocks * kBlock : 0) +
         (f == kFamilyFrame ? kNewBlock : 0);
}
uint64_t FreesIn(uint32_t f) { return f % 5 + 1 + (f == kFamilyFrame ? 1 : 0); }

tc::TestCapture GameCapture(uint32_t frames = kFrames) {
  tc::TestCapture capture;
  capture.Module("/opt/game", 0, 0x400000, 0x10000);
  capture.Module("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", 0x7f0000000000, 0, 0x10000);
  capture.Stack(1, {kGameCode});
  capture.Stack(2, {kGameCode + 0x100});
  capture.Stack(3, {kDriverCode});
  capture.Stack(4, {kGameCode + 0x200});
  capture.Marker(1, "glfwSwapBuffers");
  capture.Marker(2, "boss_spawn");
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
    if (f == kMapFrame) events.push_back(tc::Map(++t, f, 0x7e0000000000, kMapped, 3));
    if (f == kUnmapFrame) events.push_back(tc::Unmap(++t, f, 0x7e0000000000, kMapped));
    if (f == kMarkerFrame) events.push_back(tc::Marker(++t, f, 2));
    if (f == kFamilyFrame) {
      events.push_back(tc::Alloc(++t, f, 0x20000, kNewBlock, 4, 0, 0, wire::FAMILY_NEW));
      events.push_back(tc::Free(++t, f, 0x20000));
    }
    events.push_back(tc::FrameEnd(++t, f));
  }
  capture.Batch(500, events);
  capture.End();
  capture.Recorder(true, 0);
  return capture;
}

json Timeline(const std::string& capture, bool first_picture, const std::vector<std::string>& more = {}) {
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture, "--dump-view-data", "timeline"};
  if (first_picture) argv.push_back("--first-picture");
  argv.insert(argv.end(), more.begin(), more.end());
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
    EXPECT_EQ(row["frees"], FreesIn(f)) << "frame " << f;
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
  // The live graph by class, with the mapped bytes, the class toggles'
  // figures, the markers and the mismatches: the whole load's, exactly
  // (the index's viewer summary, written by the first open).
  EXPECT_EQ(preview["live"]["stacked_by"], "class");
  EXPECT_EQ(preview["live"], whole["live"]);
  EXPECT_EQ(preview["markers"], whole["markers"]);
  EXPECT_EQ(preview["mismatches"], whole["mismatches"]);
  // And the truth: the game's and the driver's bands, the driver's mapping
  // while it lasts, its load's blocks live from their frame on.
  ASSERT_EQ(preview["live"]["module_classes"], json({"game", "driver"})) << preview["live"]["module_classes"];
  ASSERT_EQ(preview["live"]["frames"].size(), kFrames);
  uint64_t game_live = 0;
  for (uint32_t f = 0; f < kFrames; ++f) {
    const json& classes = preview["live"]["frames"][f]["classes"];
    game_live += kKeptBlock;
    EXPECT_EQ(classes["game"]["live_bytes"], game_live) << "frame " << f;
    EXPECT_EQ(classes["game"]["mapped_bytes"], 0) << "frame " << f;
    EXPECT_EQ(classes["driver"]["live_bytes"], f >= kLoadFrame ? kLoadBlocks * kBlock : 0) << "frame " << f;
    EXPECT_EQ(classes["driver"]["mapped_bytes"], f >= kMapFrame && f < kUnmapFrame ? kMapped : 0) << "frame " << f;
    EXPECT_EQ(classes["driver"]["allocations"], f == kLoadFrame ? kLoadBlocks : 0) << "frame " << f;
  }
  EXPECT_EQ(preview["header"]["classes"]["driver"]["allocations"], kLoadBlocks);
  EXPECT_EQ(preview["header"]["classes"]["driver"]["bytes"], kLoadBlocks * kBlock);
  ASSERT_EQ(preview["markers"].size(), 1u) << preview["markers"];
  EXPECT_EQ(preview["markers"][0]["name"], "boss_spawn");
  EXPECT_EQ(preview["markers"][0]["frame"], kMarkerFrame);
  ASSERT_EQ(preview["mismatches"].size(), 1u) << preview["mismatches"];
  EXPECT_EQ(preview["mismatches"][0]["kind"], "family");
  EXPECT_EQ(preview["mismatches"][0]["frame"], kFamilyFrame);

  // A class hidden: the preview's bands are the whole load's still. Rules
  // of the user's: the index's classes are the built-in rules', so the
  // preview draws the total and no toggles.
  json hidden = Timeline(capture, true, {"--hide", "driver"});
  EXPECT_EQ(hidden["live"]["module_classes"], json({"game"}));
  EXPECT_EQ(hidden["live"], Timeline(capture, false, {"--hide", "driver"})["live"]);
  json ruled = Timeline(capture, true, {"--module-class", "swrast_dri.so=game"});
  EXPECT_EQ(ruled["preview"], true);
  EXPECT_EQ(ruled["live"]["stacked_by"], "total");
  EXPECT_EQ(ruled["header"]["classes"], nullptr);

  // Another capture in its place: the index is stale and never used.
  ASSERT_TRUE(GameCapture(kFrames - 1).Write(capture));
  json stale = Timeline(capture, true);
  EXPECT_EQ(stale["preview"], false);
  EXPECT_EQ(stale["frame_count"], kFrames - 1);
}

// An index without the viewer's summary (as `memframe report` and `memframe
// run` write it): the preview's live graph is the total, without markers;
// the whole load then writes the summary in, and the next preview has it.
TEST(ViewerFirstPicture, AnIndexWithoutTheViewersSummaryGetsIt) {
  e2e::ScratchDirectory scratch("memframe-viewer-first-picture-report");
  const std::string capture = (scratch.path() / "game.mfc").string();
  ASSERT_TRUE(GameCapture().Write(capture));
  analysis::Capture model;
  analysis::HeapAnalysis heap;
  std::string error, why;
  const analysis::CaptureStamp stamp = analysis::StampCapture(capture);
  ASSERT_TRUE(analysis::LoadSummary(capture, &model, &heap, &error)) << error;
  ASSERT_TRUE(analysis::WriteSummaryIndex(capture, stamp, model, heap, &why)) << why;

  json bare = Timeline(capture, true);
  EXPECT_EQ(bare["preview"], true);
  EXPECT_EQ(bare["live"]["stacked_by"], "total");
  EXPECT_EQ(bare["markers"].size(), 0u);
  EXPECT_EQ(bare["header"]["classes"], nullptr);
  json whole = Timeline(capture, false);  // the preview, then the whole load, which writes the summary in
  EXPECT_EQ(whole["live"]["stacked_by"], "class");
  json full = Timeline(capture, true);
  EXPECT_EQ(full["preview"], true);
  EXPECT_EQ(full["live"], whole["live"]);
  EXPECT_EQ(full["markers"], whole["markers"]);
  EXPECT_EQ(full["header"], whole["header"]);
}

TEST(ViewerFirstPicture, OnlyTheTimelineHasOne) {
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, "x.mfc", "--dump-view-data", "hidden", "--first-picture"};
  EXPECT_EQ(e2e::RunCommand(argv, kTimeoutSeconds).exit_code, 2);
}

}  // namespace
}  // namespace memframe
