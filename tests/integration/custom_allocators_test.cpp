// The game's own allocators, end to end: custom_allocators.cc
// (custom_allocators_truth.h) recorded by `memframe run`, then
// `memframe report allocators` and the leaks report checked exactly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "custom_allocators_truth.h"
#include "e2e_helpers.h"

namespace memframe {
namespace {

using nlohmann::json;
using namespace targets::custom_allocators;

const std::string kOutput = "custom allocators: " + std::to_string(kFrames) + " frames\n";

class CustomAllocatorsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new e2e::ScratchDirectory("memframe-custom-allocators");
    capture_ = (scratch_->path() / "allocators.mfc").string();
    std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--",
                                     MEMFRAME_CUSTOM_ALLOCATORS_PATH};
    e2e::CommandResult run = e2e::RunCommand(argv, 120);
    ASSERT_EQ(run.exit_code, 0) << e2e::ShellCommandLine(argv);
    ASSERT_EQ(run.standard_output, kOutput);
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }

  static json Report(const std::vector<std::string>& args) {
    std::string failure;
    json j = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_, args, &failure);
    EXPECT_FALSE(j.is_discarded()) << failure;
    return j;
  }

  static json Allocator(const std::string& name) {
    json report = Report({"allocators"});
    for (const json& a : report["allocators"])
      if (a["name"] == name) return a;
    ADD_FAILURE() << "no allocator " << name << " in " << report.dump(2);
    return json::object();
  }

  static e2e::ScratchDirectory* scratch_;
  static std::string capture_;
};

e2e::ScratchDirectory* CustomAllocatorsTest::scratch_ = nullptr;
std::string CustomAllocatorsTest::capture_;

TEST_F(CustomAllocatorsTest, RunsTheSameWithoutMemframe) {
  e2e::CommandResult native = e2e::RunCommand({MEMFRAME_CUSTOM_ALLOCATORS_PATH}, 60);
  EXPECT_EQ(native.exit_code, 0);
  EXPECT_EQ(native.standard_output, kOutput);
}

TEST_F(CustomAllocatorsTest, DeclaredInOrder) {
  json report = Report({"allocators"});
  ASSERT_EQ(report["allocators"].size(), 3u) << report.dump(2);
  EXPECT_EQ(report["allocators"][0]["name"], kArenaName);
  EXPECT_EQ(report["allocators"][0]["kind"], "frame arena");
  EXPECT_EQ(report["allocators"][1]["name"], kPoolName);
  EXPECT_EQ(report["allocators"][1]["kind"], "pool");
  EXPECT_EQ(report["allocators"][2]["name"], kRingName);
  EXPECT_EQ(report["allocators"][2]["kind"], "ring");
}

TEST_F(CustomAllocatorsTest, FrameArena) {
  json a = Allocator(kArenaName);
  EXPECT_EQ(a["capacity"], kArenaCapacity);
  EXPECT_EQ(a["backing_block"], kAllocatorHeader + kArenaCapacity);
  EXPECT_EQ(a["blocks"], kFrames * kArenaBlocksPerFrame);
  EXPECT_EQ(a["bytes"], kFrames * kArenaBytesPerFrame);
  EXPECT_EQ(a["releases"], kFrames);
  EXPECT_EQ(a["frames"], kFrames);
  EXPECT_EQ(a["high_water"], kArenaBytesPerFrame);
  EXPECT_DOUBLE_EQ(a["occupancy"].get<double>(), static_cast<double>(kArenaBytesPerFrame) / kArenaCapacity);
  EXPECT_EQ(a["median_blocks_per_frame"], kArenaBlocksPerFrame);
  EXPECT_EQ(a["median_bytes_per_frame"], kArenaBytesPerFrame);
  EXPECT_EQ(a["median_releases_per_frame"], 1);
  EXPECT_EQ(a["live_blocks_end"], 0);
  EXPECT_EQ(a["live_bytes_end"], 0);
  // The block the game kept past the reset.
  ASSERT_EQ(a["outlived"].size(), 1u) << a.dump(2);
  const json& b = a["outlived"][0];
  EXPECT_EQ(b["size"], kOutlivedSize);
  EXPECT_EQ(b["alloc_frame"], kOutlivedFrame);
  EXPECT_EQ(b["release_frame"], kOutlivedFrame);
  EXPECT_EQ(b["free_frame"], kOutlivedFrame + 1);
  EXPECT_EQ(b["site"]["function"], "Allocate") << b.dump(2);  // the arena, not the annotation header
}

// The game frees the block it kept past the arena's reset (custom_allocators.cc,
// memframe_custom_free(kept)): a free after its allocator's release, named
// as such, not a free of an unknown block.
TEST_F(CustomAllocatorsTest, TheFreeOfABlockHeldPastItsReleaseIsNamed) {
  json summary = Report({"summary"});
  EXPECT_EQ(summary["freed_after_release"], 1) << summary.dump(2);
  EXPECT_EQ(summary["unknown_frees"], 0);
  e2e::CommandResult text = e2e::RunCommand({MEMFRAME_CLI_PATH, "report", capture_}, 60);
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_NE(text.standard_output.find("note: 1 free of a block after its allocator's release was ignored (the game "
                                      "held the block past the release; the allocators report lists it)\n"),
            std::string::npos)
      << text.standard_output;
  EXPECT_EQ(text.standard_output.find("unknown block"), std::string::npos) << text.standard_output;
  // The mismatches report names it too, not as a double free.
  json mismatches = Report({"mismatches"});
  ASSERT_EQ(mismatches["mismatches"].size(), 1u) << mismatches.dump(2);
  EXPECT_EQ(mismatches["mismatches"][0]["kind"], "freed_after_release");
  EXPECT_EQ(mismatches["mismatches"][0]["bytes"], kOutlivedSize);
  EXPECT_EQ(mismatches["mismatches"][0]["first_frame"], kOutlivedFrame + 1);
}

TEST_F(CustomAllocatorsTest, ParticlePool) {
  json a = Allocator(kPoolName);
  EXPECT_EQ(a["capacity"], kPoolCapacity);
  EXPECT_EQ(a["backing_block"], kAllocatorHeader + kPoolCapacity);
  EXPECT_EQ(a["blocks"], kFrames * kParticlesPerFrame);
  EXPECT_EQ(a["bytes"], kFrames * kParticlesPerFrame * kPoolSlot);
  EXPECT_EQ(a["releases"], 1);
  EXPECT_EQ(a["frames"], kFrames);
  EXPECT_EQ(a["high_water"], kParticleLife * kParticlesPerFrame * kPoolSlot);
  EXPECT_EQ(a["median_blocks_per_frame"], kParticlesPerFrame);
  EXPECT_EQ(a["median_bytes_per_frame"], kParticlesPerFrame * kPoolSlot);
  EXPECT_EQ(a["median_releases_per_frame"], 0);
  // The particles of the last frames were never given back.
  EXPECT_EQ(a["live_blocks_end"], kParticleLife * kParticlesPerFrame);
  EXPECT_EQ(a["live_bytes_end"], kParticleLife * kParticlesPerFrame * kPoolSlot);
  EXPECT_EQ(a["outlived"].size(), 0u);
}

TEST_F(CustomAllocatorsTest, AudioRing) {
  json a = Allocator(kRingName);
  EXPECT_EQ(a["capacity"], kRingCapacity);
  EXPECT_EQ(a["backing_block"], kAllocatorHeader + kRingCapacity);
  EXPECT_EQ(a["blocks"], kFrames);
  EXPECT_EQ(a["bytes"], kFrames * kRingSlot);
  EXPECT_EQ(a["releases"], 0);
  EXPECT_EQ(a["frames"], kFrames + 1);  // drained after the last frame mark
  EXPECT_EQ(a["high_water"], kRingDelay * kRingSlot);
  EXPECT_EQ(a["median_blocks_per_frame"], 1);
  EXPECT_EQ(a["median_bytes_per_frame"], kRingSlot);
  EXPECT_EQ(a["live_blocks_end"], 0);
  EXPECT_EQ(a["outlived"].size(), 0u);
}

}  // namespace
}  // namespace memframe
