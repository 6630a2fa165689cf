// memframe-viewer and named markers, on a synthetic capture: the timeline's
// data lists every MARKER event at its frame, and the snapshot diff between
// two markers (--diff-a / --diff-b) has the figures of
// `memframe report CAPTURE diff A B --json`.
#include <gtest/gtest.h>

#include <filesystem>
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

// Frames 0..19. Every frame, stack 1 allocates and frees 64 B (churn) and
// stack 4 keeps 16 B. level_load_begin in frame 5 (after that frame's churn
// block is allocated), level_load_end in frame 7: in between, stack 2
// allocates 1000 B and 500 B and stack 3's 300 B block (from frame 0) is
// freed. A second level_load_begin in frame 15 (a name stands for its first
// marker). Two threads: thread 501 allocates too, interleaved by ticks.
TestCapture MarkerCapture() {
  TestCapture tc;
  tc.Stack(1, {0x401000, 0x402000});
  tc.Stack(2, {0x403000});
  tc.Stack(3, {0x404000});
  tc.Stack(4, {0x405000, 0x406000});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Marker(2, "level_load_begin");
  tc.Marker(3, "level_load_end");
  tc.Thread(500, "main");
  tc.Thread(501, "loader");
  std::vector<TestEvent> main, loader;
  uint64_t t = 1000;
  for (uint32_t f = 0; f < 20; ++f) {
    main.push_back(Alloc(++t, f, 0x10000, 64, 1));
    if (f == 0) main.push_back(Alloc(++t, f, 0x30000, 300, 3));
    loader.push_back(Alloc(++t, f, 0x50000 + f * 0x100, 16, 4));
    if (f == 5 || f == 15) main.push_back(testing::Marker(++t, f, 2));
    if (f == 5) loader.push_back(Alloc(++t, f, 0x20000, 1000, 2));
    if (f == 6) {
      main.push_back(Free(++t, f, 0x30000));
      loader.push_back(Alloc(++t, f, 0x20400, 500, 2));
    }
    if (f == 7) main.push_back(testing::Marker(++t, f, 3));
    main.push_back(Free(++t, f, 0x10000));
    main.push_back(FrameEnd(++t, f));
  }
  tc.Batch(500, main);
  tc.Batch(501, loader);
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

class ViewerMarkers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-viewer-markers");
    capture_ = (scratch_->path() / "markers.mfc").string();
    written_ = MarkerCapture().Write(capture_);
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  void SetUp() override { ASSERT_TRUE(written_); }

  static json RunJson(const std::vector<std::string>& argv) {
    e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);  // its stderr is in the test's log
    json data = e2e::ParseJsonOrDiscard(r.standard_output);
    EXPECT_FALSE(data.is_discarded()) << r.standard_output;
    return data;
  }
  static json Dump(const std::string& view, std::vector<std::string> extra) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", view};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunJson(argv);
  }
  static json Report(const std::string& a, const std::string& b) {
    return RunJson({MEMFRAME_CLI_PATH, "report", capture_, "diff", a, b, "--json"});
  }

  // The viewer's diff against the report's: both sides, the totals and
  // every changed stack.
  static void ExpectSameDiff(const json& view, const json& report) {
    for (const char* side : {"a", "b"}) {
      SCOPED_TRACE(side);
      EXPECT_EQ(view[side]["kind"], report[side]["kind"]);
      EXPECT_EQ(view[side]["cut"], report[side]["cut"]);
      EXPECT_EQ(view[side]["frame"], report[side]["frame"]);
      EXPECT_EQ(view[side]["blocks"], report[side]["blocks"]);
      EXPECT_EQ(view[side]["bytes"], report[side]["bytes"]);
    }
    EXPECT_EQ(view["delta_bytes"], report["delta_bytes"]);
    ASSERT_EQ(view["rows"].size(), report["sites"].size());
    for (size_t i = 0; i < view["rows"].size(); ++i) {
      const json& row = view["rows"][i];
      const json& site = report["sites"][i];
      SCOPED_TRACE("row " + std::to_string(i));
      for (const char* key : {"stack_id", "change", "blocks_a", "bytes_a", "blocks_b", "bytes_b", "delta_blocks",
                              "delta_bytes"})
        EXPECT_EQ(row[key], site[key]) << key;
    }
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_;
  static inline bool written_ = false;
};

TEST_F(ViewerMarkers, TimelineListsEveryMarkerAtItsFrame) {
  json data = Dump("timeline", {});
  ASSERT_EQ(data["markers"].size(), 3u) << data["markers"];
  const std::vector<std::pair<std::string, uint64_t>> want = {
      {"level_load_begin", 5}, {"level_load_end", 7}, {"level_load_begin", 15}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(data["markers"][i]["name"], want[i].first) << i;
    EXPECT_EQ(data["markers"][i]["frame"], want[i].second) << i;
  }
  EXPECT_LT(data["markers"][0]["ns_since_start"].get<uint64_t>(), data["markers"][1]["ns_since_start"].get<uint64_t>());
}

TEST_F(ViewerMarkers, DiffBetweenTwoMarkersIsTheReports) {
  json view = Dump("diff", {"--diff-a", "level_load_begin", "--diff-b", "level_load_end"});
  json report = Report("level_load_begin", "level_load_end");
  EXPECT_EQ(view["error"], "");
  ExpectSameDiff(view, report);
  // What happened between the markers: +1500 B of stack 2 (1000 B at the
  // begin marker's time is not yet allocated), stack 3's 300 B gone, and
  // stack 4's frames 5..7 blocks (16 B each) that straddle the cuts.
  EXPECT_EQ(view["a"]["kind"], "marker");
  EXPECT_EQ(view["a"]["frame"], 5);
  EXPECT_EQ(view["b"]["frame"], 7);
  bool saw_gone = false, saw_new = false;
  for (const json& row : view["rows"]) {
    if (row["stack_id"] == 3) saw_gone = row["change"] == "gone" && row["bytes_a"] == 300;
    if (row["stack_id"] == 2) saw_new = row["change"] == "new" && row["bytes_b"] == 1500;
  }
  EXPECT_TRUE(saw_gone) << view["rows"];
  EXPECT_TRUE(saw_new) << view["rows"];
}

TEST_F(ViewerMarkers, MarkerAgainstAFrameRangeIsTheReports) {
  // B the end of range B (frame 12), A a marker; and the other way round.
  ExpectSameDiff(Dump("diff", {"--diff-a", "level_load_end", "--range-b", "10:12"}), Report("level_load_end", "12"));
  ExpectSameDiff(Dump("diff", {"--range", "2:3", "--diff-b", "level_load_begin"}), Report("3", "level_load_begin"));
}

TEST_F(ViewerMarkers, UnknownMarkerIsAUsageError) {
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "diff", "--diff-a", "boss"};
  e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
  EXPECT_EQ(r.exit_code, 2);  // and the CLI's message on stderr
}

// A capture cut short (a recorder killed mid-write): the viewer shows what
// was read and says so, as `memframe report` does, with the same exit status.
TEST_F(ViewerMarkers, ATruncatedCaptureIsSaidAndExitsAsTheReportDoes) {
  const std::string cut = (scratch_->path() / "cut.mfc").string();
  std::filesystem::copy_file(capture_, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 8);
  e2e::CommandResult report = e2e::RunCommand({MEMFRAME_CLI_PATH, "report", cut, "--json"}, kTimeoutSeconds);
  e2e::CommandResult viewer =
      e2e::RunCommand({MEMFRAME_VIEWER_PATH, cut, "--dump-view-data", "timeline"}, kTimeoutSeconds);
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_EQ(viewer.exit_code, 1);  // its warning on stderr
  EXPECT_FALSE(e2e::ParseJsonOrDiscard(viewer.standard_output).is_discarded()) << viewer.standard_output;
}

}  // namespace
}  // namespace memframe
