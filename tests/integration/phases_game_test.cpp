// End to end for the phase judgements: record memframe_phases_game once (a
// menu, a world map, a level intro and gameplay at their own rates, two
// loads, an unload and one-frame transients) and check what memframe says
// of each part against phases_truth.h.
#include <gtest/gtest.h>

#include <fstream>
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

  static std::string File(const std::string& name) { return (scratch_->path() / name).string(); }

  static std::string WriteBudget(const std::string& name, const std::string& text) {
    const std::string path = File(name);
    std::ofstream(path) << text;
    return path;
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
      for (const char* tick : ticks) {
        if (tick != std::string(parts[i].tick)) {
          EXPECT_FALSE(Names(site, tick)) << site["function"];
        }
      }
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
    if (site["module_class"] == "driver") {
      EXPECT_FALSE(site["owned"].get<bool>());
    }
  }
  EXPECT_TRUE(tick);
  EXPECT_TRUE(engine);
  // The frame arena is sized for the game's code alone: the world map's
  // blocks, not the driver's buffers under Present.
  const json& map_arena = lifetimes["phases"][1]["frame_arena"];
  EXPECT_EQ(map_arena["p99_bytes"], kMapAllocations * kMapBlockBytes);
  EXPECT_EQ(map_arena["calls_saved"], 2 * kMapAllocations * kMapFrames);
  // The level allocators: what each load kept.
  ASSERT_EQ(lifetimes["level_loads"].size(), 2u);
  EXPECT_EQ(lifetimes["level_loads"][0]["phase"], "load 1");
  EXPECT_GE(lifetimes["level_loads"][0]["kept_bytes"], kWorldMapBytes);
  EXPECT_GE(lifetimes["level_loads"][1]["kept_bytes"], kLevelBytes);
}

// Budgets per phase (REPORTS.md, "memframe check"). Only the game's own
// sites have figures the truth knows: GLFW and Mesa allocate too.
//
// A shadow map of kTransientBytes every kShadowInterval-th gameplay frame:
// 25 of gameplay's 180 frames, 36,408.9 bytes a frame on average though the
// typical gameplay frame makes none. The menu's banner flashes 3 times in
// its 120 frames: 6,553.6 a frame.
constexpr int kShadowMaps = kGameplayFrames / kShadowInterval;
constexpr int kBannerFlashes = kMenuFrames / kMenuFlashInterval;
static_assert(kShadowMaps == 25 && kBannerFlashes == 3);
constexpr uint64_t kTransientBudget = 32 << 10;
static_assert(kShadowMaps * kTransientBytes > kTransientBudget * kGameplayFrames);
static_assert(kBannerFlashes * kTransientBytes <= kTransientBudget * kMenuFrames);

std::string Range(int from, int to) { return std::to_string(from) + ".." + std::to_string(to); }

// Leaks are not what these tests judge (libc's stdout buffer is one).
const std::string kAnyLeaks = R"("leaks": {"blocks": 1000000, "bytes": 1000000000})";

const std::string kTransientBudgetJson = R"({
  "steady_frame": {"sites": [{"pattern": "*BuildShadowMap*", "bytes": )" +
                                         std::to_string(kTransientBudget) + R"(},
                             {"pattern": "*FlashMenuBanner*", "bytes": )" +
                                         std::to_string(kTransientBudget) + R"(}]}, )" + kAnyLeaks + "}";

TEST_F(PhasesGame, ATransientThatRecursBreaksItsPhasesBudgetAndNoOther) {
  const std::string budget = WriteBudget("transient.json", kTransientBudgetJson);
  const e2e::CommandResult r = Run({"check", capture_path_, "--budget", budget});
  EXPECT_EQ(r.exit_code, 1) << r.standard_output;
  const std::string gameplay = Range(kFirstGameplayFrame, kUnloadFrame - 1);
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 4: site *BuildShadowMap* bytes a frame"),
            (std::vector<std::string>{"FAIL", "32,768", e2e::CheckMean(kShadowMaps * kTransientBytes, kGameplayFrames),
                                      gameplay}))
      << r.standard_output;
  EXPECT_EQ(e2e::CheckMean(kShadowMaps * kTransientBytes, kGameplayFrames), "36,408.9");
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: site *FlashMenuBanner* bytes a frame"),
            (std::vector<std::string>{"pass", "32,768", e2e::CheckMean(kBannerFlashes * kTransientBytes, kMenuFrames),
                                      Range(kFirstMenuFrame, kWorldMapLoadFrame - 1)}));
  for (const char* other : {"steady 1", "steady 2", "steady 3", "steady 5"})
    EXPECT_EQ(e2e::CheckRow(r.standard_output, std::string(other) + ": site *BuildShadowMap* bytes a frame")[0], "pass")
        << other;
  EXPECT_NE(r.standard_output.find("\n1 of 13 budgets broken"), std::string::npos) << r.standard_output;
}

TEST_F(PhasesGame, TheGamesOwnFramesPerPhaseMeanAndWorst) {
  // The game's own allocations a frame: each part's ticks, the engine the
  // game ships beside it (its class is the game's), and the transients;
  // 2,000 a frame is exactly the world map's.
  const std::string budget = WriteBudget("game.json", R"({
    "steady_frame": {"module_classes": {"game": {"allocations": 2000}}},
    "steady_worst_frame": {"module_classes": {"game": {"bytes": 300000}}}
  })");
  const e2e::CommandResult r = Run({"check", capture_path_, "--budget", budget});
  EXPECT_EQ(r.exit_code, 1) << r.standard_output;
  auto mean = [&](const char* phase) {
    return e2e::CheckRow(r.standard_output, std::string(phase) + ": game allocations a frame");
  };
  EXPECT_EQ(mean("steady 1"),
            (std::vector<std::string>{"pass", "2,000",
                                      e2e::CheckMean(kMenuFrames * kMenuAllocations + kBannerFlashes, kMenuFrames),
                                      Range(kFirstMenuFrame, kWorldMapLoadFrame - 1)}))
      << r.standard_output;
  EXPECT_EQ(mean("steady 2"),
            (std::vector<std::string>{"pass", "2,000", "2,000.0", Range(kFirstMapFrame, kLevelLoadFrame - 1)}));
  EXPECT_EQ(mean("steady 3")[2], e2e::CheckMean(kIntroAllocations, 1));
  EXPECT_EQ(mean("steady 4")[2],
            e2e::CheckMean(kGameplayFrames * (kGameplayOwnAllocations + kEngineAllocations) + kShadowMaps,
                           kGameplayFrames));
  EXPECT_EQ(mean("steady 5")[2], "2,000.0");
  // The worst frame of the game's own: the menu's first banner, past
  // 300,000 bytes; gameplay's first shadow map, within them.
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: worst frame game bytes"),
            (std::vector<std::string>{"FAIL", "300,000", "310,144",
                                      std::to_string(kFirstMenuFrame + kMenuFlashInterval - 1)}));
  static_assert(kMenuAllocations * kMenuBlockBytes + kTransientBytes == 310144);
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 4: worst frame game bytes"),
            (std::vector<std::string>{"pass", "300,000", "266,384",
                                      std::to_string(kFirstGameplayFrame + kShadowInterval - 1)}));
  static_assert(kGameplayOwnAllocations * kGameplayBlockBytes + kEngineAllocations * kEngineBlockBytes +
                    kTransientBytes ==
                266384);
}

TEST_F(PhasesGame, TheNumberOfLoadsIsABudget) {
  const std::string one = WriteBudget("one-load.json", R"({"loads": 1, "unloads": 1})");
  e2e::CommandResult r = Run({"check", capture_path_, "--budget", one});
  EXPECT_EQ(r.exit_code, 1) << r.standard_output;
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "loads"), (std::vector<std::string>{"FAIL", "1", "2", "-"}))
      << r.standard_output;
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "unloads"), (std::vector<std::string>{"pass", "1", "1", "-"}));
  const std::string two = WriteBudget("two-loads.json", R"({"loads": 2, )" + kAnyLeaks + "}");
  r = Run({"check", capture_path_, "--budget", two});
  EXPECT_EQ(r.exit_code, 0) << r.standard_output;
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "loads"), (std::vector<std::string>{"pass", "2", "2", "-"}))
      << r.standard_output;
}

TEST_F(PhasesGame, OnePhaseAlone) {
  const std::string budget = WriteBudget("alone.json", kTransientBudgetJson);
  e2e::CommandResult r = Run({"check", capture_path_, "--budget", budget, "--phase", "steady 4"});
  EXPECT_EQ(r.exit_code, 1) << r.standard_output;
  EXPECT_NE(r.standard_output.find("\n1 of 2 budgets broken"), std::string::npos) << r.standard_output;
  EXPECT_TRUE(e2e::CheckRow(r.standard_output, "leaked blocks (game)").empty()) << r.standard_output;
  r = Run({"check", capture_path_, "--budget", budget, "--phase", "2"});  // steady 1 by its position
  EXPECT_EQ(r.exit_code, 0) << r.standard_output;
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: site *FlashMenuBanner* bytes a frame")[0], "pass")
      << r.standard_output;
  // A load has nothing in this budget; a phase the run does not have is no phase.
  EXPECT_EQ(Run({"check", capture_path_, "--budget", budget, "--phase", "load 1"}).exit_code, 2);
  EXPECT_EQ(Run({"check", capture_path_, "--budget", budget, "--phase", "steady 9"}).exit_code, 2);
}

TEST_F(PhasesGame, CheckNamesAreTheSameInAnotherRecording) {
  const std::string again = File("again.mfc");
  const std::vector<std::string> record = {MEMFRAME_CLI_PATH,        "run", "--no-summary", "-o", again, "--",
                                           MEMFRAME_PHASES_GAME_PATH};
  ASSERT_EQ(e2e::RunCommand(record, kRecordTimeoutSeconds).exit_code, 0) << e2e::ShellCommandLine(record);
  const std::string budget = WriteBudget("names.json", R"({
    "steady_frame": {"bytes": 1, "module_classes": {"engine": {"allocations": 20}}},
    "steady_worst_frame": {"allocations": 1},
    "allocator_time_p99_ns": 1, "load_live_bytes": 1, "loads": 2, "unloads": 1
  })");
  std::vector<std::vector<std::string>> names;
  for (const std::string& capture : {capture_path_, again}) {
    const std::string junit = File("names.xml");
    const e2e::CommandResult r = Run({"check", capture, "--budget", budget, "--junit", junit});
    EXPECT_EQ(r.exit_code, 1) << r.standard_output;
    names.push_back(e2e::JUnitTestcaseNames(e2e::ReadTextFile(junit)));
  }
  std::vector<std::string> expected;
  for (const char* phase : {"steady 1", "load 1", "steady 2", "load 2", "steady 3", "steady 4", "steady 5"}) {
    const std::string p = phase;
    if (p.rfind("load", 0) == 0) {
      expected.push_back(p + ": live bytes after");
      continue;
    }
    for (const char* check :
         {": bytes a frame", ": engine allocations a frame", ": worst frame allocations", ": allocator time p99"})
      expected.push_back(p + check);
  }
  for (const char* whole : {"loads", "unloads", "leaked blocks (game)", "leaked bytes (game)", "mismatched frees"})
    expected.push_back(whole);
  EXPECT_EQ(names[0], expected);
  EXPECT_EQ(names[1], expected);
}

}  // namespace
}  // namespace memframe::phases_game
