// End to end for the phase judgements: record memframe_phases_game once (a
// menu, a world map, a level intro and gameplay at their own rates, two
// loads, an unload and one-frame transients) and check what memframe says
// of each part against phases_truth.h.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "phases_truth.h"

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_PHASES_GAME_PATH
#error "MEMFRAME_PHASES_GAME_PATH must name the phases game executable"
#endif

namespace memframe::phases_game {
namespace {

using nlohmann::json;

constexpr int kRecordTimeoutSeconds = 180;
constexpr int kReportTimeoutSeconds = 120;

class PhasesGame : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-phases-game");
    capture_path_ = (scratch_->path() / "phases.mfc").string();
    record_command_ = {MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_path_, "--", MEMFRAME_PHASES_GAME_PATH};
    record_result_ = e2e::RunCommand(record_command_, kRecordTimeoutSeconds);
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override {
    ASSERT_EQ(record_result_.exit_code, 0) << "recording failed: " << e2e::ShellCommandLine(record_command_);
  }

  static e2e::CommandResult Run(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), MEMFRAME_CLI_PATH);
    return e2e::RunCommand(arguments, kReportTimeoutSeconds);
  }

  static json Report(const std::vector<std::string>& arguments) {
    std::string failure;
    json parsed = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_path_, arguments, &failure);
    if (parsed.is_discarded()) ADD_FAILURE() << failure;
    return parsed.is_discarded() ? json::object() : parsed;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_path_;
  static inline std::vector<std::string> record_command_;
  static inline e2e::CommandResult record_result_;
};

TEST_F(PhasesGame, EachPartOfTheGameIsAPhaseOfItsOwn) {
  const json phases = Report({"phases"})["phases"];
  ASSERT_EQ(phases.size(), std::size(kPhases)) << phases.dump(1);
  for (size_t i = 0; i < std::size(kPhases); ++i) {
    SCOPED_TRACE(kPhases[i].name);
    EXPECT_EQ(phases[i]["name"], kPhases[i].name);
    EXPECT_EQ(phases[i]["frames"]["from"], kPhases[i].from);
    EXPECT_EQ(phases[i]["frames"]["to"], kPhases[i].to);
  }
  // What the loads left behind and the unload freed, at least the game's own.
  EXPECT_GE(phases[2]["live_bytes_after"].get<int64_t>() - phases[2]["live_bytes_before"].get<int64_t>(),
            static_cast<int64_t>(kWorldMapBytes));
  EXPECT_GE(phases[4]["live_bytes_after"].get<int64_t>() - phases[4]["live_bytes_before"].get<int64_t>(),
            static_cast<int64_t>(kLevelBytes));
  EXPECT_LE(phases[7]["live_bytes_after"].get<int64_t>() - phases[7]["live_bytes_before"].get<int64_t>(),
            -static_cast<int64_t>(kLevelBytes) + (64 << 10));
}

TEST_F(PhasesGame, SpikesAreTheTransientsAndNothingElse) {
  std::vector<uint64_t> expected;
  for (int m = 1; m <= kMenuFrames; ++m)
    if (FlashesBanner(m)) expected.push_back(kFirstMenuFrame + m - 1);
  for (int g = 1; g <= kGameplayFrames; ++g)
    if (BuildsShadowMap(g)) expected.push_back(kFirstGameplayFrame + g - 1);
  std::vector<uint64_t> spikes;
  const json frames = Report({"frames"});
  for (const json& f : frames["frames"])
    if (f["spike"].get<bool>()) spikes.push_back(f["frame"]);
  EXPECT_EQ(spikes, expected);
}

}  // namespace
}  // namespace memframe::phases_game
