// End to end for GPU objects: record memframe_gpu_game (two levels of
// known textures, buffers and renderbuffers, one texture never deleted)
// under Mesa and check every figure `memframe report gpu` gives against
// gpu_truth.h.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "gpu_truth.h"

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_GPU_GAME_PATH
#error "MEMFRAME_GPU_GAME_PATH must name the GPU game executable"
#endif

namespace memframe::gpu_game {
namespace {

using nlohmann::json;

constexpr int kRecordTimeoutSeconds = 180;

class GpuGame : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-gpu-game");
    capture_ = (scratch_->path() / "gpu.mfc").string();
    untracked_ = (scratch_->path() / "no-gpu.mfc").string();
    recorded_ = e2e::RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--", MEMFRAME_GPU_GAME_PATH},
                                kRecordTimeoutSeconds);
    untracked_recorded_ = e2e::RunCommand(
        {MEMFRAME_CLI_PATH, "run", "--no-summary", "--no-gpu", "-o", untracked_, "--", MEMFRAME_GPU_GAME_PATH},
        kRecordTimeoutSeconds);
    std::string failure;
    report_ = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_, {"gpu"}, &failure);
    if (report_.is_discarded()) failure_ = failure;
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override {
    ASSERT_EQ(recorded_.exit_code, 0) << "recording failed";
    ASSERT_FALSE(report_.is_discarded()) << failure_;
  }

  // The objects made in `frame`, their bytes sorted.
  static std::vector<uint64_t> BytesMadeIn(int frame) {
    std::vector<uint64_t> bytes;
    for (const json& o : report_["objects"])
      if (o["made_frame"] == frame) bytes.push_back(o["peak_bytes"].get<uint64_t>());
    std::sort(bytes.begin(), bytes.end());
    return bytes;
  }

  static const json* FrameRow(int frame) {
    for (const json& f : report_["frames"])
      if (f["frame"] == frame) return &f;
    return nullptr;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_, untracked_, failure_;
  static inline e2e::CommandResult recorded_, untracked_recorded_;
  static inline json report_;
};

std::vector<uint64_t> SortedBytes(const Object* objects, int count) {
  std::vector<uint64_t> bytes;
  for (int i = 0; i < count; ++i) bytes.push_back(objects[i].bytes);
  std::sort(bytes.begin(), bytes.end());
  return bytes;
}

TEST_F(GpuGame, EachLevelMakesItsObjectsInItsLoadFrame) {
  EXPECT_EQ(BytesMadeIn(kLevel1Frame), SortedBytes(kLevel1Objects, kLevel1Count));
  EXPECT_EQ(BytesMadeIn(kLevel2Frame), SortedBytes(kLevel2Objects, kLevel2Count));
  EXPECT_EQ(report_["objects_made"], kLevel1Count + kLevel2Count);
}

TEST_F(GpuGame, LiveBytesByKindChangeOnlyInTheLoadFrames) {
  ASSERT_EQ(report_["frames"].size(), 3u) << report_["frames"].dump(1);
  const json* load1 = FrameRow(kLevel1Frame);
  ASSERT_TRUE(load1);
  EXPECT_EQ((*load1)["live_bytes"]["texture"], kLevel1Textures);
  EXPECT_EQ((*load1)["live_bytes"]["buffer"], kLevel1Buffers);
  EXPECT_EQ((*load1)["live_bytes"]["renderbuffer"], kLevel1Renderbuffers);
  EXPECT_EQ((*load1)["total"], kLevel1Bytes);
  EXPECT_EQ((*load1)["made"], kLevel1Count);

  const json* load2 = FrameRow(kLevel2Frame);
  ASSERT_TRUE(load2);
  EXPECT_EQ((*load2)["live_bytes"]["texture"], kForgottenBytes + kPortraitBytes + kProbeBytes + kLayersBytes);
  EXPECT_EQ((*load2)["live_bytes"]["buffer"], kGrowingBytes);
  EXPECT_EQ((*load2)["live_bytes"]["renderbuffer"], 0u);
  EXPECT_EQ((*load2)["deleted"], kLevel1Count - 1);
  EXPECT_EQ((*load2)["made"], kLevel2Count);

  const json* end = FrameRow(kEndFrame);
  ASSERT_TRUE(end);
  EXPECT_EQ((*end)["total"], kForgottenBytes);
  EXPECT_EQ((*end)["deleted"], kLevel2Count);
  EXPECT_EQ(report_["peak"]["bytes"], kLevel1Bytes);
  EXPECT_EQ(report_["peak"]["frame"], kLevel1Frame);
}

TEST_F(GpuGame, TheForgottenTextureIsAliveAtTheEndWithItsMipChainAndItsSite) {
  EXPECT_EQ(report_["alive_at_end"]["objects"], 1);
  EXPECT_EQ(report_["alive_at_end"]["bytes"], kForgottenBytes);
  const json& objects = report_["objects"];
  auto it = std::find_if(objects.begin(), objects.end(), [](const json& o) { return o["alive"] == true; });
  ASSERT_NE(it, objects.end());
  EXPECT_EQ((*it)["kind"], "texture");
  EXPECT_EQ((*it)["format_name"], "GL_RGBA8");
  EXPECT_EQ((*it)["width"], 64);
  EXPECT_EQ((*it)["height"], 64);
  EXPECT_EQ((*it)["levels"], 7);
  EXPECT_EQ((*it)["made_frame"], kLevel1Frame);
  EXPECT_TRUE(e2e::StackContains((*it)["site"], "LoadLevel1")) << (*it)["site"].dump(1);
}

TEST_F(GpuGame, EveryObjectNamesTheLoadThatMadeItAndHowItWasSized) {
  for (const json& o : report_["objects"]) {
    const bool level1 = o["made_frame"] == kLevel1Frame;
    EXPECT_TRUE(e2e::StackContains(o["site"], level1 ? "LoadLevel1" : "LoadLevel2")) << o.dump(1);
    const bool portrait = o["peak_bytes"] == kPortraitBytes;
    EXPECT_EQ(o["size_basis"], portrait ? "as uploaded" : "exact") << o.dump(1);
    if (o["peak_bytes"] == kGrowingBytes) {
      EXPECT_EQ(o["resizes"], 1);
    }
    if (o["peak_bytes"] == kSkyBytes || o["peak_bytes"] == kProbeBytes) {
      EXPECT_EQ(o["target"], 0x8513) << "a cube map";  // GL_TEXTURE_CUBE_MAP
    }
    if (o["peak_bytes"] == kMsaaBytes) {
      EXPECT_EQ(o["samples"], 4);
    }
  }
}

TEST_F(GpuGame, TheLevelLoadDiffShowsTheGpuBesideTheHeap) {
  std::string failure;
  const json diff = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_,
                                    {"diff", std::to_string(kLevel1Frame - 1), std::to_string(kLevel1Frame)}, &failure);
  ASSERT_FALSE(diff.is_discarded()) << failure;
  EXPECT_GE(diff["delta_bytes"].get<int64_t>(), static_cast<int64_t>(kLevelHeapBytes));
  const json& gpu = diff["gpu"];
  EXPECT_EQ(gpu["bytes_a"], 0);
  EXPECT_EQ(gpu["bytes_b"], kLevel1Bytes);
  EXPECT_EQ(gpu["by_kind"]["texture"]["bytes_b"], kLevel1Textures);
  EXPECT_EQ(gpu["made"], kLevel1Count);
  EXPECT_EQ(gpu["kept"].size(), static_cast<size_t>(kLevel1Count));
}

// `memframe check` with GPU budgets: the load's GPU total exactly at its
// limit passes, a byte under breaks it; the steady phases make no GPU bytes
// (glBufferSubData streams, it does not allocate).
TEST_F(GpuGame, CheckJudgesTheGpuBudgetsByPhase) {
  auto check = [&](uint64_t load_limit) {
    const std::string budget = (scratch_->path() / ("budget" + std::to_string(load_limit) + ".json")).string();
    std::ofstream(budget) << R"({"gpu": {"load_live_bytes": )" << load_limit << R"(, "steady_frame_bytes": 0}})";
    return e2e::RunCommand({MEMFRAME_CLI_PATH, "check", capture_, "--budget", budget}, 120);
  };
  const e2e::CommandResult met = check(kLevel1Bytes);
  EXPECT_EQ(met.exit_code, 0) << met.standard_output;
  for (const char* name : {"load 1: GPU live bytes after", "steady 1: GPU bytes made a frame",
                           "steady 2: GPU bytes made a frame", "steady 3: GPU bytes made a frame"})
    EXPECT_NE(met.standard_output.find(name), std::string::npos) << name << "\n" << met.standard_output;
  const e2e::CommandResult broken = check(kLevel1Bytes - 1);
  EXPECT_EQ(broken.exit_code, 1) << broken.standard_output;
  const std::string& table = broken.standard_output;
  const size_t row = table.find("load 1: GPU live bytes after");
  ASSERT_NE(row, std::string::npos) << table;
  const size_t line = table.rfind('\n', row) + 1;
  EXPECT_EQ(table.substr(line, row - line).find("FAIL"), 2u) << table;  // "  FAIL    load 1: ..."
  EXPECT_EQ(table.find("FAIL", row), std::string::npos) << "only the load's budget is broken\n" << table;
}

// memframe attach between the loads (gpu_truth.h, kAttachBeforeFrame): the
// GL calls the game links and those it makes through pointers it fetched at
// the start reach the hooks from the attach on; objects made before it are
// unknown until deleted, and the report says so.
TEST(GpuGameAttach, EveryCallAfterTheAttachIsSeenAndEarlierObjectsAreUnknown) {
  e2e::ScratchDirectory dir("memframe-gpu-attach");
  const std::string capture = (dir.path() / "attached.mfc").string();
  e2e::Child game = e2e::Child::Start(
      {MEMFRAME_GPU_GAME_PATH, "--wait-before-frame", std::to_string(kAttachBeforeFrame)}, STDOUT_FILENO);
  ASSERT_GT(game.pid, 0);
  ASSERT_EQ(game.ReadLine(), "memframe_gpu_game: waiting before frame " + std::to_string(kAttachBeforeFrame));
  e2e::Child attach = e2e::Child::Start({MEMFRAME_CLI_PATH, "attach", "--no-summary", "--no-live", "-o", capture,
                                         std::to_string(game.pid)},
                                        STDERR_FILENO);
  std::string said, line;
  while (!(line = attach.ReadLine()).empty() && line.rfind("memframe: recording", 0) != 0) said += line + "\n";
  ASSERT_FALSE(line.empty()) << "memframe attach stopped before recording:\n" << said;
  EXPECT_EQ(said.find("not patched at its entry"), std::string::npos) << said;
  fputs("go\n", game.to);
  fflush(game.to);
  EXPECT_EQ(game.Wait(), 0);
  while (!(line = attach.ReadLine()).empty()) said += line + "\n";
  ASSERT_EQ(attach.Wait(), 0) << said;

  std::string failure;
  const json report = e2e::ReportJson(MEMFRAME_CLI_PATH, capture, {"gpu"}, &failure);
  ASSERT_FALSE(report.is_discarded()) << failure;
  EXPECT_EQ(report["attached"], true);
  EXPECT_EQ(report["deletes_of_unknown"], kUnknownDeletesAfterAttach);
  ASSERT_EQ(report["objects"].size(), static_cast<size_t>(kLevel2Count)) << report["objects"].dump(1);
  std::vector<uint64_t> made, expected;
  for (const json& o : report["objects"]) {
    made.push_back(o["peak_bytes"].get<uint64_t>());
    // Frames are counted from the attach.
    EXPECT_EQ(o["made_frame"], kLevel2Frame - kAttachBeforeFrame) << o.dump(1);
    EXPECT_EQ(o["deleted_frame"], kEndFrame - kAttachBeforeFrame) << o.dump(1);
    EXPECT_TRUE(e2e::StackContains(o["site"], "LoadLevel2")) << o.dump(1);
    if (o["peak_bytes"] == kPortraitBytes) {
      EXPECT_EQ(o["size_basis"], "as uploaded");
    }
    if (o["peak_bytes"] == kGrowingBytes) {
      EXPECT_EQ(o["resizes"], 1) << o.dump(1);
    }
  }
  for (const Object& o : kLevel2Objects) expected.push_back(o.bytes);
  std::sort(made.begin(), made.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(made, expected);
  EXPECT_EQ(report["alive_at_end"]["objects"], 0);
  const e2e::CommandResult text = e2e::RunCommand({MEMFRAME_CLI_PATH, "report", capture, "gpu"}, 120);
  EXPECT_NE(text.standard_output.find("The recording starts at an attach"), std::string::npos) << text.standard_output;
}

TEST_F(GpuGame, NoGpuRecordsNoObjects) {
  ASSERT_EQ(untracked_recorded_.exit_code, 0);
  std::string failure;
  const json report = e2e::ReportJson(MEMFRAME_CLI_PATH, untracked_, {"gpu"}, &failure);
  ASSERT_FALSE(report.is_discarded()) << failure;
  EXPECT_EQ(report["objects_made"], 0);
}

}  // namespace
}  // namespace memframe::gpu_game
