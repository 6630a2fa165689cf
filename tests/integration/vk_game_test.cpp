// End to end for Vulkan memory: record memframe_vk_game (two levels of
// known device memory, buffers and images under lavapipe, one block it
// sub-allocates, one staging buffer it forgets) and check every figure
// `memframe report gpu` and `diff` give against vk_truth.h, and the memory
// type and heap of each block against what the driver told the game.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "vk_truth.h"

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_VK_GAME_PATH
#error "MEMFRAME_VK_GAME_PATH must name the Vulkan game executable"
#endif

namespace memframe::vk_game {
namespace {

using nlohmann::json;

constexpr int kRecordTimeoutSeconds = 180;

class VkGame : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-vk-game");
    capture_ = (scratch_->path() / "vk.mfc").string();
    recorded_ = e2e::RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--", MEMFRAME_VK_GAME_PATH},
                                kRecordTimeoutSeconds);
    std::string failure;
    report_ = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_, {"gpu"}, &failure);
    if (report_.is_discarded()) failure_ = failure;
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override {
    ASSERT_EQ(recorded_.exit_code, 0) << "recording failed (its stderr is in the log above)";
    ASSERT_FALSE(report_.is_discarded()) << failure_;
  }

  static const json* FrameRow(int frame) {
    for (const json& f : report_["frames"])
      if (f["frame"] == frame) return &f;
    return nullptr;
  }

  // The report's block of `bytes` made in `frame` (sizes are distinct per level).
  static const json* BlockOf(uint64_t bytes, int frame) {
    for (const json& o : report_["objects"])
      if (o["kind"] == "vk-memory" && o["peak_bytes"] == bytes && o["made_frame"] == frame)
        for (const json& b : report_["vulkan_blocks"])
          if (b["memory"] == o["name"] && b["bytes"] == bytes) return &b;
    return nullptr;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_, failure_;
  static inline e2e::CommandResult recorded_;
  static inline json report_;
};

TEST_F(VkGame, EachBlockHoldsItsResourcesAtTheirOffsets) {
  auto check = [](const Block* blocks, int count, int frame) {
    for (int i = 0; i < count; ++i) {
      const Block& b = blocks[i];
      const json* block = BlockOf(b.bytes, frame);
      ASSERT_TRUE(block) << b.what << "\n" << report_["vulkan_blocks"].dump(1);
      ASSERT_EQ((*block)["bound"].size(), static_cast<size_t>(b.resource_count)) << b.what << block->dump(1);
      uint64_t bound = 0;
      for (int r = 0; r < b.resource_count; ++r) {
        const Resource& want = b.resources[r];
        const json& got = (*block)["bound"][r];  // by offset, as the truth lists them
        EXPECT_EQ(got["kind"], want.kind == Kind::kBuffer ? "vk-buffer" : "vk-image") << want.what;
        EXPECT_EQ(got["bytes"], want.bytes) << want.what;
        EXPECT_EQ(got["offset"], want.offset) << want.what;
        bound += want.bytes;
      }
      EXPECT_EQ((*block)["bound_bytes"], bound) << b.what;
    }
  };
  check(kLevel1Blocks, kLevel1BlockCount, kLevel1Frame);
  check(kLevel2Blocks, kLevel2BlockCount, kLevel2Frame);
  EXPECT_EQ(report_["vulkan_blocks"].size(), static_cast<size_t>(kLevel1BlockCount + kLevel2BlockCount));
}

TEST_F(VkGame, EachBlockIsInTheMemoryTypeAndHeapTheDriverGave) {
  // "vk_game: block NAME type T heap H flags F", one line per block.
  std::istringstream lines(recorded_.standard_output);
  int seen = 0;
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(" type ");
    if (line.rfind("vk_game: block ", 0) != 0 || at == std::string::npos) continue;
    const std::string name = line.substr(15, at - 15);
    unsigned type = 0, heap = 0, flags = 0;
    ASSERT_EQ(sscanf(line.c_str() + at, " type %u heap %u flags %u", &type, &heap, &flags), 3) << line;
    const Block* truth = nullptr;
    int frame = kLevel1Frame;
    for (const Block& b : kLevel1Blocks)
      if (name == b.what) truth = &b;
    for (const Block& b : kLevel2Blocks)
      if (name == b.what) truth = &b, frame = kLevel2Frame;
    ASSERT_TRUE(truth) << line;
    const json* block = BlockOf(truth->bytes, frame);
    ASSERT_TRUE(block) << line;
    EXPECT_EQ((*block)["memory_type"], type) << line;
    EXPECT_EQ((*block)["memory_heap"], heap) << line;
    EXPECT_NE((*block)["memory_flags"].get<std::string>().find(truth->device_local ? "device-local" : "host-visible"),
              std::string::npos)
        << line;
    ++seen;
  }
  EXPECT_EQ(seen, kLevel1BlockCount + kLevel2BlockCount) << recorded_.standard_output;
}

TEST_F(VkGame, LiveDeviceMemoryChangesOnlyInTheLoadFramesAndTheStagingBlockLeaks) {
  ASSERT_EQ(report_["frames"].size(), 3u) << report_["frames"].dump(1);
  const json* load1 = FrameRow(kLevel1Frame);
  const json* load2 = FrameRow(kLevel2Frame);
  const json* end = FrameRow(kEndFrame);
  ASSERT_TRUE(load1 && load2 && end) << report_["frames"].dump(1);
  EXPECT_EQ((*load1)["total"], kLevel1MemoryBytes);
  EXPECT_EQ((*load1)["live_bytes"]["vk-memory"], kLevel1MemoryBytes);
  EXPECT_EQ((*load1)["made"], kLevel1BlockCount + ResourceCount(kLevel1Blocks, kLevel1BlockCount));
  EXPECT_EQ((*load2)["total"], kLevel2MemoryBytes);
  EXPECT_EQ((*load2)["live_bytes"]["vk-buffer"], kStagingBytes + kShadowResources[1].bytes + kConstantResources[0].bytes);
  EXPECT_EQ((*load2)["live_bytes"]["vk-image"], kShadowResources[0].bytes);
  EXPECT_EQ((*end)["total"], kEndMemoryBytes);
  EXPECT_EQ(report_["peak"]["bytes"], kLevel1MemoryBytes);
  EXPECT_EQ(report_["peak"]["frame"], kLevel1Frame);

  EXPECT_EQ(report_["alive_at_end"]["bytes"], kStagingBytes);
  int alive = 0;
  for (const json& o : report_["objects"]) {
    if (o["alive"] != true) continue;
    ++alive;
    EXPECT_EQ(o["peak_bytes"], kStagingBytes) << o.dump(1);
    EXPECT_EQ(o["made_frame"], kLevel1Frame);
    EXPECT_TRUE(e2e::StackContains(o["site"], "LoadLevel1")) << o["site"].dump(1);
  }
  EXPECT_EQ(alive, 2) << "the staging buffer and its memory";
}

TEST_F(VkGame, ImagesCarryTheirFormatAndSize) {
  std::vector<std::string> seen;
  for (const json& o : report_["objects"])
    if (o["kind"] == "vk-image")
      seen.push_back(o["format_name"].get<std::string>() + " " + std::to_string(o["width"].get<int>()) + "x" +
                     std::to_string(o["height"].get<int>()) + " levels " + std::to_string(o["levels"].get<int>()));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"VK_FORMAT_D32_SFLOAT 512x512 levels 1",
                                            "VK_FORMAT_R8G8B8A8_UNORM 256x256 levels 1",
                                            "VK_FORMAT_R8G8B8A8_UNORM 256x256 levels 1"}));
}

TEST_F(VkGame, TheTextReportAndTheDiffShowTheVulkanObjects) {
  const e2e::CommandResult text = e2e::RunCommand({MEMFRAME_CLI_PATH, "report", capture_, "gpu"}, 120);
  EXPECT_NE(text.standard_output.find("Vulkan memory and what is bound in it"), std::string::npos)
      << text.standard_output;
  EXPECT_NE(text.standard_output.find("VK_FORMAT_D32_SFLOAT"), std::string::npos) << text.standard_output;
  std::string failure;
  const json diff = e2e::ReportJson(
      MEMFRAME_CLI_PATH, capture_,
      {"diff", std::to_string(kLevel1Frame - 1), std::to_string(kLevel1Frame)}, &failure);
  ASSERT_FALSE(diff.is_discarded()) << failure;
  EXPECT_EQ(diff["gpu"]["delta_bytes"], kLevel1MemoryBytes) << diff["gpu"].dump(1);
}

#ifdef MEMFRAME_VIEWER_PATH
TEST_F(VkGame, TheViewersGpuTabListsTheVulkanObjects) {
  const e2e::CommandResult dump =
      e2e::RunCommand({MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "gpu"}, 120);
  ASSERT_EQ(dump.exit_code, 0);
  const json view = json::parse(dump.standard_output, nullptr, false);
  ASSERT_FALSE(view.is_discarded()) << dump.standard_output;
  EXPECT_EQ(view["objects"], report_["objects_made"]);
  int memories = 0, shadow_maps = 0;
  for (const json& r : view["rows"]) {
    memories += r["kind"] == "vk-memory";
    shadow_maps += r["format_name"] == "VK_FORMAT_D32_SFLOAT" && r["dimensions"] == "512x512";
  }
  EXPECT_EQ(memories, kLevel1BlockCount + kLevel2BlockCount);
  EXPECT_EQ(shadow_maps, 1);
}
#endif

}  // namespace
}  // namespace memframe::vk_game
