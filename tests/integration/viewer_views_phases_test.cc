// memframe-viewer on a game in parts: record memframe_phases_game once (a
// menu, a world map, a level intro and gameplay at their own rates, loads
// and an unload; phases_truth.h) and check what --dump-view-data says:
//  - Hidden and Lifetimes judge one steady phase, never the parts pooled:
//    with nothing picked the longest (gameplay), with --phase the one named;
//  - a search for a game function keeps the sites it led to (the engine's),
//    in the tables and in the live graph by filter, and not the driver's
//    sites another function led to;
//  - the timeline's phase bands carry the phases' names.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "phases_truth.h"

namespace memframe::phases_game {
namespace {

using nlohmann::json;

constexpr int kTimeoutSeconds = 180;
// Gameplay frames 7, 14, ... build the shadow map: a frame in between.
constexpr int kGameplayFrame = kFirstGameplayFrame + 2;
constexpr int kMapFrame = kFirstMapFrame + 10;

class ViewerPhases : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-viewer-phases");
    capture_ = (scratch_->path() / "phases.mfc").string();
    record_ = e2e::RunCommand(
        {MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--", MEMFRAME_PHASES_GAME_PATH}, kTimeoutSeconds);
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override { ASSERT_EQ(record_.exit_code, 0) << "recording the phases game failed"; }

  static json Dump(const std::string& view, std::vector<std::string> picks) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", view};
    argv.insert(argv.end(), picks.begin(), picks.end());
    e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json data = e2e::WithStacks(e2e::ParseJsonOrDiscard(r.standard_output));
    EXPECT_FALSE(data.is_discarded()) << r.standard_output;
    return data;
  }

  // The row whose site is named after `function` (its user frame), or null.
  static json RowOf(const json& rows, const std::string& function) {
    for (const json& row : rows)
      if (row["function"].get<std::string>().find(function) != std::string::npos) return row;
    return nullptr;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_;
  static inline e2e::CommandResult record_;
};

// Nothing picked: gameplay, the longest steady phase, at its own rates; the
// menu's and the map's ticks are not in it.
TEST_F(ViewerPhases, HiddenOpensOnTheLongestSteadyPhase) {
  const json hidden = Dump("hidden", {});
  EXPECT_EQ(hidden["scope"], (json{{"source", "longest steady phase"}, {"phase", "steady 4"}}));
  EXPECT_EQ(hidden["range"], (json{{"from", kFirstGameplayFrame}, {"to", kUnloadFrame - 1}}));
  EXPECT_EQ(hidden["judged_frames"]["frame_count"], kGameplayFrames);
  const json tick = RowOf(hidden["rows"], "GameplayTick");
  ASSERT_FALSE(tick.is_null());
  EXPECT_EQ(tick["allocs_per_frame_median"], kGameplayOwnAllocations);
  EXPECT_EQ(tick["frames_with_allocations"], kGameplayFrames);
  const json engine = RowOf(hidden["rows"], "engine_find_path");
  ASSERT_FALSE(engine.is_null());
  EXPECT_EQ(engine["module"], "libphases_engine.so");
  EXPECT_EQ(engine["allocs_per_frame_median"], kEngineAllocations);
  for (const char* other : {"MenuTick", "MapTick", "IntroTick"}) EXPECT_TRUE(RowOf(hidden["rows"], other).is_null()) << other;

  // --phase names another: the world map at its own rate.
  const json map = Dump("hidden", {"--phase", "steady 2"});
  EXPECT_EQ(map["scope"], (json{{"source", "range picked"}, {"phase", "steady 2"}}));
  const json map_tick = RowOf(map["rows"], "MapTick");
  ASSERT_FALSE(map_tick.is_null());
  EXPECT_EQ(map_tick["allocs_per_frame_median"], kMapAllocations);
  EXPECT_TRUE(RowOf(map["rows"], "GameplayTick").is_null());
}

// Lifetimes judge the same phase; advice is for the game's and its
// engine's sites, the driver's are counted, not advised.
TEST_F(ViewerPhases, LifetimesJudgeThePhaseAndAdviseTheGamesCode) {
  const json lifetimes = Dump("lifetimes", {});
  EXPECT_EQ(lifetimes["scope"]["phase"], "steady 4");
  const json tick = RowOf(lifetimes["rows"], "GameplayTick");
  ASSERT_FALSE(tick.is_null());
  EXPECT_EQ(tick["class"], "frame");
  EXPECT_EQ(tick["allocations"], kGameplayFrames * kGameplayOwnAllocations);
  EXPECT_TRUE(tick["owned"]);
  const json engine = RowOf(lifetimes["rows"], "engine_find_path");
  ASSERT_FALSE(engine.is_null());
  EXPECT_EQ(engine["allocations"], kGameplayFrames * kEngineAllocations);
  EXPECT_TRUE(engine["owned"]);
  bool driver = false;
  for (const json& row : lifetimes["rows"]) {
    if (row["module_class"] != "driver") continue;
    driver = true;
    EXPECT_FALSE(row["owned"]) << row["name"];
  }
  EXPECT_TRUE(driver);
}

// A search for GameplayTick keeps the engine's site it led to, not the
// driver's sites under Present; a search for Present keeps those.
TEST_F(ViewerPhases, SearchFindsTheSitesAFunctionLedTo) {
  const json gameplay = Dump("hidden", {"--search", "GameplayTick"});
  ASSERT_EQ(gameplay["rows"].size(), 2u) << gameplay["rows"].dump(1);
  EXPECT_FALSE(RowOf(gameplay["rows"], "GameplayTick").is_null());
  EXPECT_FALSE(RowOf(gameplay["rows"], "engine_find_path").is_null());

  const json present = Dump("hidden", {"--search", "Present"});
  bool driver = false;
  for (const json& row : present["rows"]) {
    EXPECT_TRUE(e2e::StackContains(row, "Present")) << row["name"];
    EXPECT_FALSE(e2e::StackContains(row, "GameplayTick")) << row["name"];
    driver = driver || row["module_class"] == "driver";
  }
  EXPECT_TRUE(driver);
  EXPECT_TRUE(RowOf(present["rows"], "engine_find_path").is_null());

  // The live graph by filter: what GameplayTick led to, frame by frame, is
  // its own allocations and the engine's, and nothing outside gameplay.
  const json timeline = Dump("timeline", {"--live-by", "filter", "--search", "GameplayTick"});
  const json& live = timeline["live"];
  EXPECT_EQ(live["stacked_by"], "filter");
  bool seen_gameplay = false, seen_map = false;
  for (const json& f : live["frames"]) {
    const json& matching = f["groups"]["matching"];
    if (f["frame"] == kGameplayFrame) {
      seen_gameplay = true;
      EXPECT_EQ(matching["allocations"], kGameplayOwnAllocations + kEngineAllocations);
      EXPECT_EQ(matching["bytes_allocated"],
                kGameplayOwnAllocations * kGameplayBlockBytes + kEngineAllocations * kEngineBlockBytes);
    } else if (f["frame"] == kMapFrame) {
      seen_map = true;
      EXPECT_EQ(matching["allocations"], 0);
    }
  }
  EXPECT_TRUE(seen_gameplay);
  EXPECT_TRUE(seen_map);
}

// Start-up, the loads and the unload are bands named as the reports name
// them; steady play and the teardown are not bands.
TEST_F(ViewerPhases, TimelineBandsCarryThePhasesNames) {
  const json phases = Dump("timeline", {})["phases"];
  ASSERT_EQ(phases.size(), std::size(kPhases));
  for (size_t i = 0; i < std::size(kPhases); ++i) {
    SCOPED_TRACE(kPhases[i].name);
    const std::string name = kPhases[i].name;
    EXPECT_EQ(phases[i]["name"], name);
    const bool band = name.starts_with("start-up") || name.starts_with("load") || name.starts_with("unload");
    const json expected = band ? json{{"label", name}} : json(nullptr);
    EXPECT_EQ(phases[i]["band"], expected);
  }
}

}  // namespace
}  // namespace memframe::phases_game
