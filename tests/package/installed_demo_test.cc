// The installed package at work: the `memframe` unpacked from the .deb
// (deb_package_test.sh passes its path in MEMFRAME_INSTALLED_CLI, and runs
// this from a directory outside the build tree) records the demo game with
// the agent it finds beside itself, and its reports reproduce the game's
// truth (tests/programs/demo_game/demo_truth.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "demo_truth.h"
#include "e2e_helpers.h"

namespace memframe::demo {
namespace {

using nlohmann::json;

// Fewer frames than the integration suites: this checks the installed
// files, not the analysis, and must stay cheap.
constexpr int kGameplayFrames = 40;
constexpr int kTimeoutSeconds = 120;

std::string Installed(const char* variable) {
  const char* value = getenv(variable);
  return value ? value : "";
}

class InstalledDemo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cli_ = Installed("MEMFRAME_INSTALLED_CLI");
    capture_ = (std::filesystem::current_path() / "demo.mfc").string();
    record_ = {cli_, "run", "--no-summary", "-o", capture_, "--", MEMFRAME_DEMO_GAME_PATH, "--frames",
               std::to_string(kGameplayFrames), "--quiet"};
    recorded_ = e2e::RunCommand(record_, kTimeoutSeconds);
  }

  void SetUp() override {
    ASSERT_FALSE(cli_.empty()) << "MEMFRAME_INSTALLED_CLI names no installed memframe";
    ASSERT_EQ(recorded_.exit_code, 0) << e2e::ShellCommandLine(record_);
  }

  static json Report(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {cli_, "report", capture_});
    arguments.push_back("--json");
    const e2e::CommandResult result = e2e::RunCommand(arguments, kTimeoutSeconds);
    EXPECT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(arguments);
    json parsed = e2e::ParseJsonOrDiscard(result.standard_output);
    return parsed.is_object() ? e2e::WithStacks(std::move(parsed)) : json::object();
  }

  static inline std::string cli_, capture_;
  static inline std::vector<std::string> record_;
  static inline e2e::CommandResult recorded_;
};

TEST_F(InstalledDemo, CountsEveryFrameOfACompleteRun) {
  const json summary = Report({});
  EXPECT_EQ(summary.value("frames", -1), TotalFrames(kGameplayFrames));
  EXPECT_EQ(summary.value("frame_source", ""), "glfwSwapBuffers");
  EXPECT_TRUE(summary.value("capture", json::object()).value("complete", false));
}

// Reports that stay cheap on a capture (`sites` over the whole run
// symbolizes every driver stack): the per-frame site, and the load frame.
TEST_F(InstalledDemo, DamageLabelsAreAHiddenPerFrameSite) {
  const json hidden = Report({"hidden"});
  const std::vector<json> sites = e2e::SitesWithFunctionInStack(e2e::EveryScopeRows(hidden), kSpawnDamageLabelFunction);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites.front().value("allocs_per_frame_min", -1), kHitsPerFrame);
  EXPECT_EQ(sites.front().value("allocs_per_frame_max", -1), kHitsPerFrame);
  EXPECT_EQ(sites.front().value("size_min", -1), static_cast<int>(kDamageLabelBytes));
  EXPECT_EQ(sites.front().value("size_max", -1), static_cast<int>(kDamageLabelBytes));
}

TEST_F(InstalledDemo, TheLoadFrameAllocatesTheWholeLevel) {
  const std::string load = std::to_string(LoadFrame());
  const json sites = e2e::OneScopeRows(Report({"sites", "--from", load, "--to", load}));
  const e2e::SiteTotals level = e2e::SumSites(e2e::SitesWithFunctionInStack(sites, kLoadLevelFunction));
  EXPECT_EQ(level.allocations, static_cast<uint64_t>(kLevelBlocks));
  EXPECT_EQ(level.bytes, kLevelBytes);
}

}  // namespace
}  // namespace memframe::demo
