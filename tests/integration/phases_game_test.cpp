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

// The function a site is named after ends with `name` and "()" or "(int)".
bool Names(const json& site, const std::string& name) {
  const std::string function = site["function"].get<std::string>();
  return function.find("::" + name + "(") != std::string::npos || function.rfind(name + "(", 0) == 0;
}

// Each steady phase answers on its own: the tick of that part of the game
// tops it at its own rate, and no other part's tick appears in it.
TEST_F(PhasesGame, HiddenSitesAnswerPerSteadyPhaseTheGamesOwnFirst) {
  struct Part {
    const char* phase;
    const char* tick;
    int allocations;
  };
  const Part parts[] = {{"steady 1", "MenuTick", kMenuAllocations},   {"steady 2", "MapTick", kMapAllocations},
                        {"steady 3", "IntroTick", kIntroAllocations}, {"steady 4", "GameplayTick", kGameplayOwnAllocations},
                        {"steady 5", "MapTick", kMapAllocations}};
  const json hidden = Report({"hidden"});
  ASSERT_EQ(hidden["phases"].size(), std::size(parts)) << hidden.dump(1).substr(0, 2000);
  const char* ticks[] = {"MenuTick", "MapTick", "IntroTick", "GameplayTick"};
  for (size_t i = 0; i < std::size(parts); ++i) {
    SCOPED_TRACE(parts[i].phase);
    const json& phase = hidden["phases"][i];
    EXPECT_EQ(phase["phase"], parts[i].phase);
    const json& sites = phase["sites"];
    ASSERT_FALSE(sites.empty());
    EXPECT_TRUE(Names(sites[0], parts[i].tick)) << sites[0]["function"];
    EXPECT_EQ(sites[0]["allocs_per_frame_median"], parts[i].allocations);
    EXPECT_EQ(sites[0]["frames_with_allocations"], sites[0]["frames_in_range"]);
    bool game_part = true;
    for (const json& site : sites) {
      // The game's own rows first.
      if (!site["from_game"].get<bool>()) game_part = false;
      EXPECT_TRUE(game_part || !site["from_game"].get<bool>()) << site["name"];
      for (const char* tick : ticks)
        if (tick != std::string(parts[i].tick)) EXPECT_FALSE(Names(site, tick)) << site["function"];
      EXPECT_FALSE(Names(site, "BuildShadowMap") || Names(site, "FlashMenuBanner")) << "a transient is no churn";
    }
  }
  // The engine's allocations on the game's behalf: the game ships the
  // engine beside it (its class is the game's), called from GameplayTick.
  bool engine = false;
  for (const json& site : hidden["phases"][3]["sites"]) {
    if (site["module"] != "libphases_engine.so") continue;
    engine = true;
    EXPECT_EQ(site["allocs_per_frame_median"], kEngineAllocations);
    EXPECT_EQ(site["module_class"], "game");
    EXPECT_TRUE(site["from_game"].get<bool>());
    EXPECT_TRUE(e2e::StackContains(site, "GameplayTick")) << site["name"];
  }
  EXPECT_TRUE(engine);
}

TEST_F(PhasesGame, APhaseIsAskedForByName) {
  const json gameplay = Report({"hidden", "--phase", "steady 4"});
  ASSERT_EQ(gameplay["phases"].size(), 1u);
  EXPECT_EQ(gameplay["phases"][0]["frames"]["from"], kFirstGameplayFrame);
  EXPECT_TRUE(Names(gameplay["phases"][0]["sites"][0], "GameplayTick"));
  // By position: the third phase is the world map's load, whose sites
  // include LoadWorldMap's blocks.
  const json load = Report({"sites", "--phase", "3"});
  ASSERT_EQ(load["phases"].size(), 1u);
  EXPECT_EQ(load["phases"][0]["phase"], "load 1");
  uint64_t map_blocks = 0;
  for (const json& site : load["phases"][0]["sites"])
    if (Names(site, "LoadAssets")) map_blocks += site["allocations"].get<uint64_t>();
  EXPECT_EQ(map_blocks, static_cast<uint64_t>(kWorldMapBlocks));
  // A phase the capture does not have is an error naming those it has.
  const e2e::CommandResult missing = Run({"report", capture_path_, "hidden", "--phase", "load 3"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST_F(PhasesGame, LifetimeAdviceIsForTheGamesCodeInEachPart) {
  const json lifetimes = Report({"lifetimes"});
  ASSERT_EQ(lifetimes["phases"].size(), 5u);
  // Boundaries: the two loads, the change from intro to gameplay, the unload.
  EXPECT_EQ(lifetimes["boundary_frames"], json({kWorldMapLoadFrame, kLevelLoadFrame, kFirstGameplayFrame, kUnloadFrame}));
  const json& gameplay = lifetimes["phases"][3];
  bool tick = false, engine = false;
  for (const json& site : gameplay["sites"]) {
    if (Names(site, "GameplayTick") && site["module_class"] == "game") {
      tick = true;
      EXPECT_EQ(site["class"], "frame");
      EXPECT_TRUE(site["owned"].get<bool>());
    }
    if (site["module"] == "libphases_engine.so") {
      engine = true;
      EXPECT_EQ(site["class"], "frame");
      EXPECT_TRUE(site["owned"].get<bool>());
    }
    if (site["module_class"] == "driver") EXPECT_FALSE(site["owned"].get<bool>());
  }
  EXPECT_TRUE(tick);
  EXPECT_TRUE(engine);
  // The level allocators: what each load kept.
  ASSERT_EQ(lifetimes["level_loads"].size(), 2u);
  EXPECT_EQ(lifetimes["level_loads"][0]["phase"], "load 1");
  EXPECT_GE(lifetimes["level_loads"][0]["kept_bytes"], kWorldMapBytes);
  EXPECT_GE(lifetimes["level_loads"][1]["kept_bytes"], kLevelBytes);
}

}  // namespace
}  // namespace memframe::phases_game
