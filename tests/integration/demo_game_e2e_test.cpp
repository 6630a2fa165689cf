// End to end: record memframe_demo_game with `memframe run`, then check that
// every `memframe report ... --json` view reproduces the figures the game
// was written to produce (tests/programs/demo_game/demo_truth.h).
//
// The game runs once for the whole suite (recording is the slow part); each
// report is computed once and shared by the tests that read it.
//
// Built a second time for the Windows demo (tests/windows/): with
// MEMFRAME_WINDOWS_INJECTOR_PATH, the game is memframe_demo_game.exe run
// under Wine by memframe.exe, whose agent streams to `memframe run --tcp`;
// the figures checked are the same.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "demo_truth.h"
#include "e2e_helpers.h"
#ifdef MEMFRAME_SUMMARY_BOTH_WAYS
#include "summary_both_ways.h"
#endif

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_DEMO_GAME_PATH
#error "MEMFRAME_DEMO_GAME_PATH must name the demo game executable"
#endif

namespace memframe::demo {
namespace {

using nlohmann::json;

// Enough gameplay frames that the per-frame sites are in most frames (the
// hidden report's default threshold is half of them), few enough that a
// software-rendered, recorded run takes seconds.
constexpr int kGameplayFrames = 120;
static_assert(2 * kGameplayFrames > TotalFrames(kGameplayFrames), "per-frame sites must cover most frames");

constexpr int kRecordTimeoutSeconds = 180;
constexpr int kReportTimeoutSeconds = 120;

#ifdef MEMFRAME_WINDOWS_INJECTOR_PATH
constexpr std::string_view kFrameSource = "SwapBuffers";
// The frames hidden and lifetimes judge. On Linux the driver's first-draw
// allocations put the first gameplay frame in the load (demo_truth.h); under
// Wine the driver (Mesa) allocates on Wine's Unix side, which the Windows
// agent does not see, so the load is LoadFrame() alone.
constexpr int kSteadyFrames = kGameplayFrames;
std::vector<std::string> RecordCommand(const std::string& capture, const std::filesystem::path& scratch) {
  // The prefix ctest names (windows.build made it: making one is slow), else
  // one of the suite's own.
  setenv("WINEPREFIX", (scratch / "wine").c_str(), 0);
  setenv("WINEDEBUG", "-all", 1);
  return {MEMFRAME_CLI_PATH, "run", "--tcp", "-o", capture, "--", "wine", MEMFRAME_WINDOWS_INJECTOR_PATH, "run",
          "--", MEMFRAME_DEMO_GAME_PATH, "--frames", std::to_string(kGameplayFrames), "--quiet"};
}
#else
constexpr std::string_view kFrameSource = "glfwSwapBuffers";
constexpr int kSteadyFrames = SteadyGameplayFrames(kGameplayFrames);
std::vector<std::string> RecordCommand(const std::string& capture, const std::filesystem::path&) {
  return {MEMFRAME_CLI_PATH, "run", "-o", capture, "--",
          MEMFRAME_DEMO_GAME_PATH, "--frames", std::to_string(kGameplayFrames), "--quiet"};
}
#endif

class DemoGameE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-demo-e2e");
    capture_path_ = (scratch_->path() / "demo.mfc").string();
    record_command_ = RecordCommand(capture_path_, scratch_->path());
    record_result_ = e2e::RunCommand(record_command_, kRecordTimeoutSeconds);
  }

  static void TearDownTestSuite() {
    reports_.clear();
    scratch_.reset();
  }

  // Every test reads the capture: without one there is nothing to check.
  void SetUp() override {
    ASSERT_EQ(record_result_.exit_code, 0)
        << "recording failed: " << e2e::ShellCommandLine(record_command_) << "\nstdout:\n"
        << record_result_.standard_output;
  }

  // `memframe report CAPTURE <arguments> --json`, parsed. On failure the
  // test is marked failed and an empty object comes back.
  static json Report(const std::vector<std::string>& arguments) {
    std::vector<std::string> command = {MEMFRAME_CLI_PATH, "report", capture_path_};
    command.insert(command.end(), arguments.begin(), arguments.end());
    command.push_back("--json");
    const std::string key = e2e::ShellCommandLine(command);
    if (const auto cached = reports_.find(key); cached != reports_.end()) return cached->second;

    const e2e::CommandResult result = e2e::RunCommand(command, kReportTimeoutSeconds);
    if (result.exit_code != 0) {
      ADD_FAILURE() << key << " exited with " << result.exit_code;
      return json::object();
    }
    json parsed = e2e::ParseJsonOrDiscard(result.standard_output);
    if (parsed.is_discarded() || !parsed.is_object()) {
      ADD_FAILURE() << key << " did not print one JSON object:\n" << result.standard_output.substr(0, 2000);
      return json::object();
    }
    parsed = e2e::WithStacks(std::move(parsed));
    reports_.emplace(key, parsed);
    return parsed;
  }

  // The sites of the report (of every phase of a per-phase report) whose
  // stack contains `function`.
  static std::vector<json> SitesOf(const json& report, std::string_view function) {
    return e2e::SitesWithFunctionInStack(e2e::EveryScopeRows(report), function);
  }

  static std::string FrameArgument(int frame) { return std::to_string(frame); }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_path_;
  static inline std::vector<std::string> record_command_;
  static inline e2e::CommandResult record_result_;
  static inline std::map<std::string, json> reports_;
};

TEST_F(DemoGameE2E, SummaryCountsEveryRenderedFrame) {
  const json summary = Report({});
  EXPECT_EQ(summary.value("frames", -1), TotalFrames(kGameplayFrames));
  EXPECT_EQ(summary.value("frame_source", ""), kFrameSource);
  const json capture = summary.value("capture", json::object());
  EXPECT_EQ(capture.value("exit_status", -1), 0);
  EXPECT_TRUE(capture.value("complete", false));
}

#ifdef MEMFRAME_SUMMARY_BOTH_WAYS
TEST_F(DemoGameE2E, TheSummaryInOnePassIsTheWholeLoadsSummary) { e2e::ExpectTheSummaryTheSameBothWays(capture_path_); }
#endif

TEST_F(DemoGameE2E, DamageLabelsAreAHiddenPerFrameSite) {
  const std::vector<json> sites = SitesOf(Report({"hidden"}), kSpawnDamageLabelFunction);
  ASSERT_EQ(sites.size(), 1u) << "one call site allocates every DamageLabel";
  const json& site = sites.front();
  EXPECT_NE(site.value("function", "").find(kSpawnDamageLabelFunction), std::string::npos)
      << "the site should be named after the game function that called new: " << site.value("function", "");
  // Over steady play: the first gameplay frame is in the load (demo_truth.h).
  const int frames = kSteadyFrames;
  EXPECT_EQ(site.value("allocations", -1), DamageLabelCount(frames));
  EXPECT_EQ(site.value("bytes", -1), DamageLabelCount(frames) * static_cast<int>(kDamageLabelBytes));
  EXPECT_EQ(site.value("frames_with_allocations", -1), frames);
  EXPECT_EQ(site.value("allocs_per_frame_min", -1), kHitsPerFrame);
  EXPECT_EQ(site.value("allocs_per_frame_max", -1), kHitsPerFrame);
  EXPECT_EQ(site.value("bytes_per_frame_min", -1), kHitsPerFrame * static_cast<int>(kDamageLabelBytes));
  EXPECT_EQ(site.value("bytes_per_frame_max", -1), kHitsPerFrame * static_cast<int>(kDamageLabelBytes));
  EXPECT_EQ(site.value("size_min", -1), static_cast<int>(kDamageLabelBytes));
  EXPECT_EQ(site.value("size_max", -1), static_cast<int>(kDamageLabelBytes));
}

#ifdef MEMFRAME_WINDOWS_INJECTOR_PATH
// The agent's DbgHelp read the game's DWARF where it ran and the capture
// carries its names (SymbolDefs): the Linux report gives every frame of the
// game's sites, from the allocating function up to main, its file:line.
// Without them a PE module has its COFF names only, and no locations.
TEST_F(DemoGameE2E, WindowsStacksHaveTheFileAndLineDbgHelpGave) {
  const json report = Report({"sites", "--all-frames"});
  const std::pair<std::string_view, std::string> sources[] = {{kSpawnDamageLabelFunction, "entities.cpp:"},
                                                              {kFireProjectileFunction, "entities.cpp:"},
                                                              {kBuildHudTextFunction, "hud.cpp:"},
                                                              {kLeakingFunction, "level.cpp:"}};
  for (const auto& [function, file] : sources) {
    SCOPED_TRACE(std::string(function));
    const std::vector<json> sites = SitesOf(report, function);
    ASSERT_EQ(sites.size(), 1u);
    EXPECT_EQ(sites.front().value("location", "").rfind(file, 0), 0u) << sites.front().value("location", "");
    bool reached_main = false;
    for (const json& frame : sites.front().value("stack", json::array())) {
      const std::string name = frame.value("function", "");
      EXPECT_NE(frame.value("file", ""), "") << name;
      EXPECT_GT(frame.value("line", 0), 0) << name;
      if (name == "main") {
        EXPECT_EQ(std::filesystem::path(frame.value("file", "")).filename(), "main_windows.cpp");
        reached_main = true;
        break;
      }
    }
    EXPECT_TRUE(reached_main);
  }
}

// Wine's own DLLs (user32 making the window's cursors, imm32 its input
// context) are Windows' or the graphics driver's, never the game's, though
// the tests' Wine prefix lies in the game's folder: the game class holds
// the game's sites alone.
TEST_F(DemoGameE2E, WinesDllsAreSystemOrDriverNotGame) {
  int wine_sites = 0;
  for (const json& site : e2e::EveryScopeRows(Report({"sites", "--all-frames"}))) {
    const std::string module = site.value("module", "");
    const std::string module_class = site.value("module_class", "");
    if (module == std::filesystem::path(MEMFRAME_DEMO_GAME_PATH).filename()) {
      EXPECT_EQ(module_class, "game") << site.value("function", "");
    } else if (module.ends_with(".dll") || module.ends_with(".drv")) {
      ++wine_sites;
      EXPECT_TRUE(module_class == "system" || module_class == "driver") << module << ": " << module_class;
    }
  }
  EXPECT_GT(wine_sites, 0) << "the demo's window set-up allocates in Wine's user32";
}
#endif

TEST_F(DemoGameE2E, HudTextIsOneHiddenAllocationPerFrame) {
  const std::vector<json> sites = SitesOf(Report({"hidden"}), kBuildHudTextFunction);
  ASSERT_EQ(sites.size(), 1u) << "the HUD string is built at one place";
  const json& site = sites.front();
  EXPECT_EQ(site.value("allocations", -1), kSteadyFrames);
  EXPECT_EQ(site.value("frames_with_allocations", -1), kSteadyFrames);
  // Every gameplay frame's, with every frame judged.
  const std::vector<json> all = SitesOf(Report({"hidden", "--all-frames"}), kBuildHudTextFunction);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.front().value("allocations", -1), kGameplayFrames);
  EXPECT_EQ(site.value("allocs_per_frame_min", -1), 1);
  EXPECT_EQ(site.value("allocs_per_frame_max", -1), 1);
  EXPECT_EQ(site.value("size_min", -1), static_cast<int>(kHudTextAllocationBytes));
  EXPECT_EQ(site.value("size_max", -1), static_cast<int>(kHudTextAllocationBytes));
}

TEST_F(DemoGameE2E, ProjectilesComeFromOneSiteOfOneSize) {
  const std::vector<json> sites = SitesOf(Report({"sites", "--all-frames"}), kFireProjectileFunction);
  ASSERT_EQ(sites.size(), 1u);
  const json& site = sites.front();
  EXPECT_EQ(site.value("allocations", -1), ProjectileCount(kGameplayFrames));
  EXPECT_EQ(site.value("bytes", -1), ProjectileCount(kGameplayFrames) * static_cast<int>(kProjectileBytes));
  EXPECT_EQ(site.value("size_min", -1), static_cast<int>(kProjectileBytes));
  EXPECT_EQ(site.value("size_max", -1), static_cast<int>(kProjectileBytes));
}

TEST_F(DemoGameE2E, LevelLoadAllocatesTheWholeLevel) {
  const e2e::SiteTotals level = e2e::SumSites(SitesOf(Report({"sites", "--all-frames"}), kLoadLevelFunction));
  EXPECT_EQ(level.allocations, static_cast<std::uint64_t>(kLevelBlocks));
  EXPECT_EQ(level.bytes, kLevelBytes);
}

// Frame ranges are inclusive: --from F --to F selects frame F alone. A
// range that holds a site's whole total proves nothing of it falls outside.
TEST_F(DemoGameE2E, EachPhaseAllocatesInItsOwnFrames) {
  const json whole_run = Report({"sites", "--all-frames"});
  const std::string load = FrameArgument(LoadFrame());
  const json load_frame = Report({"sites", "--from", load, "--to", load});
  const json gameplay = Report({"sites", "--from", FrameArgument(FirstGameplayFrame()), "--to",
                                FrameArgument(LastGameplayFrame(kGameplayFrames))});

  const e2e::SiteTotals level_in_load_frame = e2e::SumSites(SitesOf(load_frame, kLoadLevelFunction));
  EXPECT_EQ(level_in_load_frame.allocations, static_cast<std::uint64_t>(kLevelBlocks));
  EXPECT_EQ(level_in_load_frame.bytes, kLevelBytes);
  EXPECT_TRUE(SitesOf(load_frame, kSpawnDamageLabelFunction).empty());
  EXPECT_TRUE(SitesOf(gameplay, kLoadLevelFunction).empty());

  for (std::string_view per_frame_function :
       {kSpawnDamageLabelFunction, kBuildHudTextFunction, kFireProjectileFunction}) {
    const e2e::SiteTotals in_gameplay = e2e::SumSites(SitesOf(gameplay, per_frame_function));
    const e2e::SiteTotals in_whole_run = e2e::SumSites(SitesOf(whole_run, per_frame_function));
    EXPECT_GT(in_gameplay.allocations, 0u) << per_frame_function;
    EXPECT_EQ(in_gameplay.allocations, in_whole_run.allocations) << per_frame_function;
    EXPECT_EQ(in_gameplay.bytes, in_whole_run.bytes) << per_frame_function;
  }
}

TEST_F(DemoGameE2E, NavMeshIsTheGamesOnlyLeak) {
  const json leaks = Report({"leaks"});
  const std::vector<json> nav_mesh = SitesOf(leaks, kLeakingFunction);
  ASSERT_EQ(nav_mesh.size(), 1u);
  EXPECT_EQ(nav_mesh.front().value("blocks", -1), kLeakedBlocks);
  EXPECT_EQ(nav_mesh.front().value("leaked_bytes", std::uint64_t{0}), kLeakedBytes);

  // Everything else the game allocated was freed: no other level block, no
  // entity, no HUD string is reported.
  EXPECT_EQ(SitesOf(leaks, kLoadLevelFunction).size(), 1u);
  EXPECT_TRUE(SitesOf(leaks, kSpawnDamageLabelFunction).empty());
  EXPECT_TRUE(SitesOf(leaks, kFireProjectileFunction).empty());
  EXPECT_TRUE(SitesOf(leaks, kBuildHudTextFunction).empty());
}

TEST_F(DemoGameE2E, FramesReportListsEveryFrameInOrder) {
  const json frames = Report({"frames"}).value("frames", json::array());
  // The teardown after the last swap may show up as one more, unfinished frame.
  ASSERT_GE(frames.size(), static_cast<size_t>(TotalFrames(kGameplayFrames)));
  ASSERT_LE(frames.size(), static_cast<size_t>(TotalFrames(kGameplayFrames) + 1));
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].value("frame", -1), static_cast<int>(i));
  }
  // GLFW and the driver allocate too, so the game's level is a lower bound.
  EXPECT_GE(frames[LoadFrame()].value("bytes_allocated", std::uint64_t{0}), kLevelBytes);
  EXPECT_GE(frames[LoadFrame()].value("allocations", 0), kLevelBlocks);
}

}  // namespace
}  // namespace memframe::demo
