// The Allocators tab on custom_allocators.cc (custom_allocators_truth.h):
// its per-frame plot is drawn (a screenshot), and a thread selection keeps
// each allocator's blocks of the selected threads alone, as `memframe report
// allocators --thread` does (--dump-view-data).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <stb_image.h>

#include "custom_allocators_truth.h"
#include "e2e_helpers.h"

namespace memframe {
namespace {

using nlohmann::json;
using namespace targets::custom_allocators;

// The main thread is named after the executable, cut to 15 bytes.
constexpr const char kMainThread[] = "target_custom_a";
// Dear ImGui's dark style's PlotHistogram colour, which the plot's bars take.
constexpr uint8_t kBarColour[3] = {230, 179, 0};

class ViewerAllocators : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-viewer-allocators");
    capture_ = (scratch_->path() / "allocators.mfc").string();
    recorded_ = e2e::RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--",
                                 MEMFRAME_CUSTOM_ALLOCATORS_PATH}, 120).exit_code == 0;
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  void SetUp() override { ASSERT_TRUE(recorded_) << "recording custom_allocators failed"; }

  // name -> row of the view (threads: --thread values).
  static json ViewRows(const std::vector<std::string>& threads) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "allocators"};
    for (const std::string& t : threads) argv.insert(argv.end(), {"--thread", t});
    e2e::CommandResult r = e2e::RunCommand(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json rows = json::object();
    for (const json& row : e2e::WithStacks(e2e::ParseJsonOrDiscard(r.standard_output)).value("rows", json::array()))
      rows[row["name"].get<std::string>()] = row;
    return rows;
  }
  static json ReportRows(const std::vector<std::string>& threads) {
    std::vector<std::string> args = {"allocators"};
    for (const std::string& t : threads) args.insert(args.end(), {"--thread", t});
    std::string failure;
    json report = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_, args, &failure);
    EXPECT_FALSE(report.is_discarded()) << failure;
    json rows = json::object();
    for (const json& a : report.value("allocators", json::array())) rows[a["name"].get<std::string>()] = a;
    return rows;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_;
  static inline bool recorded_ = false;
};

TEST_F(ViewerAllocators, ThePerFramePlotIsDrawn) {
  std::string png = (scratch_->path() / "allocators.png").string();
  std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--screenshot", png, "--view", "allocators",
                                   "--size", "1280x800"};
  ASSERT_EQ(e2e::RunCommand(argv, 120).exit_code, 0) << e2e::ShellCommandLine(argv);
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr) << png;
  size_t bar_pixels = 0;
  for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i)
    bar_pixels += pixels[i * 3] == kBarColour[0] && pixels[i * 3 + 1] == kBarColour[1] && pixels[i * 3 + 2] == kBarColour[2];
  stbi_image_free(pixels);
  // The frame arena's 60 bars fill most of a plot as wide as the window and
  // 110 pixels high; nothing else is drawn in that colour.
  EXPECT_GT(bar_pixels, 50000u);
}

TEST_F(ViewerAllocators, AThreadSelectionKeepsItsOwnBlocksAsTheReportDoes) {
  json all = ViewRows({});
  json audio = ViewRows({kAudioThreadName});
  json main = ViewRows({kMainThread});
  // The audio thread fed the ring; the main thread the arena and the pool.
  EXPECT_EQ(all[kRingName]["blocks"], kFrames);
  EXPECT_EQ(audio[kRingName]["blocks"], kFrames);
  EXPECT_EQ(audio[kRingName]["high_water"], kRingDelay * kRingSlot);
  EXPECT_EQ(main[kRingName]["blocks"], 0);
  EXPECT_EQ(main[kRingName]["high_water"], 0);
  for (const char* name : {kArenaName, kPoolName}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(main[name]["blocks"], all[name]["blocks"]);
    EXPECT_EQ(main[name]["high_water"], all[name]["high_water"]);
    EXPECT_EQ(audio[name]["blocks"], 0);
    EXPECT_EQ(audio[name]["high_water"], 0);
    // A release is the allocator's, whichever thread is shown.
    EXPECT_EQ(audio[name]["releases"], all[name]["releases"]);
  }
  EXPECT_EQ(main[kArenaName]["outlived"].size(), 1u);
  EXPECT_EQ(audio[kArenaName]["outlived"].size(), 0u);
  // The report's rows, key for key (row_json.h AllocatorJson), and only
  // what the view draws beside them.
  for (const auto& [threads, view] : {std::pair{std::vector<std::string>{}, all},
                                      std::pair{std::vector<std::string>{kAudioThreadName}, audio},
                                      std::pair{std::vector<std::string>{kMainThread}, main}}) {
    json report = ReportRows(threads);
    for (const char* name : {kArenaName, kPoolName, kRingName}) {
      SCOPED_TRACE(std::string(name) + (threads.empty() ? "" : " --thread " + threads[0]));
      json view_row = view[name];
      for (const auto& [field, value] : report[name].items()) EXPECT_EQ(view_row[field], value) << field;
      view_row.erase("high_water_per_frame");  // the plot's bars
      EXPECT_EQ(view_row.size(), report[name].size());
    }
  }
}

}  // namespace
}  // namespace memframe
