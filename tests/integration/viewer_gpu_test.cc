// The viewer's GPU side on the GPU game (gpu_truth.h): the GPU tab lists
// every object with its size, format, dimensions and the load that made it,
// a range picked keeps the objects made in it, the live graph's GPU band
// holds the live GPU bytes by kind per frame (--dump-view-data), and the
// band is drawn (a screenshot).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <stb_image.h>

#include "e2e_helpers.h"
#include "gpu_truth.h"

namespace memframe::gpu_game {
namespace {

using nlohmann::json;

// GpuKindColour(kRenderbuffer) as ImGui rounds it: the band's renderbuffer layer.
constexpr uint8_t kRenderbufferColour[3] = {242, 115, 166};

class ViewerGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-viewer-gpu");
    capture_ = (scratch_->path() / "gpu.mfc").string();
    recorded_ = e2e::RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--",
                                 MEMFRAME_GPU_GAME_PATH}, 180).exit_code == 0;
  }
  static void TearDownTestSuite() { scratch_.reset(); }
  void SetUp() override { ASSERT_TRUE(recorded_) << "recording the GPU game failed"; }

  static json View(const std::string& view, const std::vector<std::string>& more = {}) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", view};
    argv.insert(argv.end(), more.begin(), more.end());
    e2e::CommandResult r = e2e::RunCommand(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    return e2e::WithStacks(e2e::ParseJsonOrDiscard(r.standard_output));
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_;
  static inline bool recorded_ = false;
};

std::vector<uint64_t> PeakBytes(const json& rows) {
  std::vector<uint64_t> bytes;
  for (const json& r : rows) bytes.push_back(r["peak_bytes"].get<uint64_t>());
  std::sort(bytes.begin(), bytes.end());
  return bytes;
}

std::vector<uint64_t> TruthBytes(std::initializer_list<std::pair<const Object*, int>> levels) {
  std::vector<uint64_t> bytes;
  for (auto [objects, count] : levels)
    for (int i = 0; i < count; ++i) bytes.push_back(objects[i].bytes);
  std::sort(bytes.begin(), bytes.end());
  return bytes;
}

TEST_F(ViewerGpu, TheGpuTabListsEveryObjectAndTheForgottenOneAliveAtTheEnd) {
  const json data = View("gpu");
  ASSERT_FALSE(data.is_discarded());
  EXPECT_TRUE(data["range"].is_null());
  EXPECT_EQ(PeakBytes(data["rows"]), TruthBytes({{kLevel1Objects, kLevel1Count}, {kLevel2Objects, kLevel2Count}}));
  EXPECT_EQ(data["alive_at_end"]["objects"], 1);
  EXPECT_EQ(data["alive_at_end"]["bytes"], kForgottenBytes);
  EXPECT_EQ(data["peak"]["bytes"], kLevel1Bytes);
  EXPECT_EQ(data["peak"]["frame"], kLevel1Frame);
  int alive = 0;
  for (const json& r : data["rows"]) {
    const bool level1 = r["made_frame"] == kLevel1Frame;
    EXPECT_TRUE(e2e::StackContains(r["site"], level1 ? "LoadLevel1" : "LoadLevel2")) << r.dump(1);
    if (r["alive"] == false) {
      EXPECT_EQ(r["deleted_frame"], level1 ? kLevel2Frame : kEndFrame) << r.dump(1);
      continue;
    }
    ++alive;
    EXPECT_EQ(r["kind"], "texture");
    EXPECT_EQ(r["format_name"], "GL_RGBA8");
    EXPECT_EQ(r["dimensions"], "64x64");
    EXPECT_EQ(r["levels"], 7);
    EXPECT_TRUE(r["deleted_frame"].is_null());
  }
  EXPECT_EQ(alive, 1);
}

TEST_F(ViewerGpu, ARangeKeepsTheObjectsMadeInIt) {
  const std::string load2 = std::to_string(kLevel2Frame);
  const json data = View("gpu", {"--range", load2 + ":" + load2});
  ASSERT_FALSE(data.is_discarded());
  EXPECT_EQ(data["range"]["from"], kLevel2Frame);
  EXPECT_EQ(PeakBytes(data["rows"]), TruthBytes({{kLevel2Objects, kLevel2Count}}));
  EXPECT_EQ(data["bytes"], kLevel2Bytes);
  EXPECT_EQ(data["alive_at_end"]["objects"], 0);
  const json before = View("gpu", {"--range", "0:" + std::to_string(kLevel1Frame - 1)});
  EXPECT_EQ(before["rows"].size(), 0u);
}

TEST_F(ViewerGpu, TheLiveGraphsGpuBandHoldsTheLiveBytesByKindOfEveryFrame) {
  const json data = View("timeline");
  ASSERT_FALSE(data.is_discarded());
  const json& gpu = data["live"]["gpu"];
  ASSERT_TRUE(gpu.is_object()) << data["live"].dump(1).substr(0, 2000);
  EXPECT_EQ(gpu["kinds"], json::array({"buffer", "texture", "renderbuffer"}));
  EXPECT_EQ(gpu["peak_bytes"], kLevel1Bytes);
  ASSERT_EQ(gpu["frames"].size(), data["frames"].size()) << "one row per frame of the timeline";
  for (const json& f : gpu["frames"]) {
    const int frame = f["frame"].get<int>();
    const json& live = f["live_bytes"];
    if (frame < kLevel1Frame) {
      EXPECT_EQ(f["total"], 0) << frame;
    } else if (frame < kLevel2Frame) {
      EXPECT_EQ(live["texture"], kLevel1Textures) << frame;
      EXPECT_EQ(live["buffer"], kLevel1Buffers) << frame;
      EXPECT_EQ(live["renderbuffer"], kLevel1Renderbuffers) << frame;
      EXPECT_EQ(f["total"], kLevel1Bytes) << frame;
    } else if (frame < kEndFrame) {
      EXPECT_EQ(live["texture"], kForgottenBytes + kPortraitBytes + kProbeBytes + kLayersBytes) << frame;
      EXPECT_EQ(live["buffer"], kGrowingBytes) << frame;
      EXPECT_EQ(live["renderbuffer"], 0) << frame;
    } else {
      EXPECT_EQ(f["total"], kForgottenBytes) << frame;
    }
  }
}

TEST_F(ViewerGpu, TheGpuBandIsDrawn) {
  const std::string png = (scratch_->path() / "timeline.png").string();
  const std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--screenshot", png, "--view", "timeline",
                                         "--size", "1280x800"};
  ASSERT_EQ(e2e::RunCommand(argv, 120).exit_code, 0) << e2e::ShellCommandLine(argv);
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr) << png;
  size_t band = 0;
  for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i)
    band += pixels[i * 3] == kRenderbufferColour[0] && pixels[i * 3 + 1] == kRenderbufferColour[1] &&
            pixels[i * 3 + 2] == kRenderbufferColour[2];
  stbi_image_free(pixels);
  // The renderbuffers (2.2 of the 3.9 MiB live in frames 10-39) fill over
  // half the band's height across 30 of the 71 frames; nothing else is drawn
  // in that colour (the legend's swatch is a few pixels).
  EXPECT_GT(band, 5000u);
}

}  // namespace
}  // namespace memframe::gpu_game
