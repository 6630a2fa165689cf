// Who allocated, end to end: the driver game (driver_game_truth.h) recorded
// by `memframe run`, then its module classes, per-class figures, site names,
// threads, phases and default diff checked exactly in the reports' JSON and
// the viewer's view data.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "driver_game_truth.h"
#include "e2e_helpers.h"
#include "protos/perfetto/trace/trace.pb.h"

namespace memframe {
namespace {

using nlohmann::json;
using namespace driver_game;

class DriverGameTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new e2e::ScratchDirectory("memframe-driver-game");
    capture_ = (scratch_->path() / "driver.mfc").string();
    std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "run", "-o", capture_, "--", MEMFRAME_DRIVER_GAME_PATH};
    e2e::CommandResult run = e2e::RunCommand(argv, 120);
    ASSERT_EQ(run.exit_code, 0) << e2e::ShellCommandLine(argv);
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

  // A per-phase report asked for one range: its one scope ("phases"[0]).
  // The steady frames of the whole run pooled: --from 0.
  static json Scope(const std::vector<std::string>& args) {
    const json j = Report(args);
    EXPECT_EQ(j.value("phases", json::array()).size(), 1u) << j.dump(1).substr(0, 2000);
    return j.value("phases", json::array()).empty() ? json::object() : j["phases"][0];
  }

  static json ViewData(std::vector<std::string> args) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_};
    argv.insert(argv.end(), args.begin(), args.end());
    e2e::CommandResult r = e2e::RunCommand(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json j = e2e::ParseJsonOrDiscard(r.standard_output);
    EXPECT_FALSE(j.is_discarded()) << r.standard_output;
    return j;
  }

  // `memframe export` of the capture in `format`: the file's bytes.
  static std::string Export(const std::string& format) {
    const std::string path = (scratch_->path() / ("export." + format)).string();
    std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "export", capture_, "--format", format, "-o", path, "--force"};
    EXPECT_EQ(e2e::RunCommand(argv, 120).exit_code, 0) << e2e::ShellCommandLine(argv);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  static const json* Named(const json& sites, const std::string& name) {
    for (const json& s : sites) {
      if (s.value("name", "") == name) return &s;
    }
    return nullptr;
  }

  static std::string GameLocation(int line) { return std::string(kGameFile) + ":" + std::to_string(line); }

  // The block pthread_create allocates for the worker (driver_game_truth.h):
  // its count is the truth's, its size glibc's.
  static const json& ThreadCreateSite() {
    static const json sites = Scope({"sites", "--all-frames"})["sites"];
    for (const json& s : sites) {
      if (s.value("location", "") == GameLocation(kThreadCreateLine)) return s;
    }
    ADD_FAILURE() << "no site at " << GameLocation(kThreadCreateLine) << ": " << sites.dump(1);
    static const json none = {{"allocations", 0}, {"bytes", 0}};
    return none;
  }

  static inline e2e::ScratchDirectory* scratch_ = nullptr;
  static inline std::string capture_;
};

TEST_F(DriverGameTest, SummarySaysEachClassShare) {
  json j = Report({});
  std::map<std::string, json> by_class;
  for (const json& c : j["module_classes"]) by_class[c["module_class"]] = c;
  ASSERT_EQ(by_class.size(), 4u);
  // The driver allocates only inside the present; the game only in UpdateGame.
  EXPECT_EQ(by_class["driver"]["allocations"], kFrames * kDriverBlocksPerFrame);
  EXPECT_EQ(by_class["driver"]["bytes"], kFrames * kDriverBytesPerFrame);
  // The game: its main thread's code, the worker's job and pthread_create's block.
  const json& created = ThreadCreateSite();
  EXPECT_EQ(created["allocations"], 1);
  EXPECT_EQ(created["module_class"], "game");
  EXPECT_EQ(by_class["game"]["allocations"], kMainGameBlocks + kFrames * kWorkerBlocks + 1);
  EXPECT_EQ(by_class["game"]["bytes"].get<uint64_t>() - created["bytes"].get<uint64_t>(),
            kMainGameBytes + kFrames * kWorkerBlocks * kWorkerBlockBytes);
}

TEST_F(DriverGameTest, ThreadsReportHasTheWorkerAndTheMainThread) {
  json j = Report({"threads"});
  EXPECT_EQ(j["frames"], kFrames + 1);  // and the teardown
  ASSERT_EQ(j["threads"].size(), 2u) << j.dump(1);
  // The main thread carries the program's name, as the kernel cuts it.
  const json& main = j["threads"][0];
  const json& worker = j["threads"][1];
  EXPECT_EQ(main["name"], std::string("memframe_driver_game").substr(0, 15));
  EXPECT_EQ(worker["name"], kWorkerName);
  EXPECT_EQ(worker["allocations"], kFrames * kWorkerBlocks);
  EXPECT_EQ(worker["bytes"], kFrames * kWorkerBlocks * kWorkerBlockBytes);
  EXPECT_EQ(worker["frees"], kFrames * kWorkerBlocks);
  EXPECT_EQ(worker["bytes_freed"], kFrames * kWorkerBlocks * kWorkerBlockBytes);
  EXPECT_EQ(worker["frames_with_allocations"], kFrames);
  EXPECT_EQ(worker["maps"], 0);
  // Everything else is the main thread's: the game's code, the driver, the
  // block pthread_create allocates and the C++ runtime's (class system).
  json summary = Report({});
  json system;
  for (const json& c : summary["module_classes"])
    if (c["module_class"] == "system") system = c;
  const json& created = ThreadCreateSite();
  EXPECT_EQ(main["allocations"],
            kMainGameBlocks + kFrames * kDriverBlocksPerFrame + 1 + system["allocations"].get<uint64_t>());
  EXPECT_EQ(main["bytes"], kMainGameBytes + kFrames * kDriverBytesPerFrame + created["bytes"].get<uint64_t>() +
                               system["bytes"].get<uint64_t>());
  EXPECT_EQ(main["frames_with_allocations"], kFrames);
}

TEST_F(DriverGameTest, PhasesAreFoundAtTheirFrames) {
  json j = Report({"phases"});
  struct Expected {
    const char* phase;
    int from, to;
  };
  const std::vector<Expected> expected = {{"start-up", 0, 0},
                                          {"steady", 1, kLoad1First - 1},
                                          {"load", kLoad1First, kLoad1Last},
                                          {"steady", kLoad1Last + 1, kLoad2Frame - 1},
                                          {"load", kLoad2Frame, kLoad2Frame},
                                          {"steady", kLoad2Frame + 1, kFrames - 1},
                                          {"teardown", kFrames, kFrames}};
  ASSERT_EQ(j["phases"].size(), expected.size()) << j.dump(1);
  for (size_t i = 0; i < expected.size(); ++i) {
    const json& p = j["phases"][i];
    EXPECT_EQ(p["phase"], expected[i].phase) << i;
    EXPECT_EQ(p["frames"]["from"], expected[i].from) << i;
    EXPECT_EQ(p["frames"]["to"], expected[i].to) << i;
    const uint64_t frames = expected[i].to - expected[i].from + 1;
    EXPECT_EQ(p["frame_count"], frames) << i;
    // Steady play allocates the same every frame, and the loads that on top.
    if (p["phase"] == "steady") {
      EXPECT_EQ(p["allocations"], frames * kSteadyBlocksPerFrame) << i;
      EXPECT_EQ(p["bytes_allocated"], frames * kSteadyBytesPerFrame) << i;
      EXPECT_EQ(p["live_bytes_after"], p["live_bytes_before"]) << i;
    }
  }
  const json& load1 = j["phases"][2];
  EXPECT_EQ(load1["allocations"], kLevel1Blocks + 2 * kSteadyBlocksPerFrame);
  EXPECT_EQ(load1["bytes_allocated"], kLevel1Bytes + 2 * kSteadyBytesPerFrame);
  EXPECT_EQ(load1["live_bytes_after"].get<uint64_t>() - load1["live_bytes_before"].get<uint64_t>(), kLevel1Bytes);
  const json& load2 = j["phases"][4];
  EXPECT_EQ(load2["allocations"], kLevel2Blocks + kSteadyBlocksPerFrame);
  EXPECT_EQ(load2["bytes_allocated"], kLevel2Bytes + kSteadyBytesPerFrame);
  EXPECT_EQ(load2["bytes_freed"], kLevel1Bytes + kSteadyBytesPerFrame);
  EXPECT_EQ(load2["frame_before"], kLoad2Frame - 1);
  EXPECT_EQ(j["largest_load"], json({{"from", kLoad2Frame}, {"to", kLoad2Frame}}));
  // The teardown frees what the game and its driver kept, and allocates nothing.
  const json& teardown = j["phases"][6];
  EXPECT_EQ(teardown["allocations"], 0);
  EXPECT_EQ(teardown["bytes_freed"], kLevel2Bytes + kStartupBlocks * kStartupBlockBytes + kDriverBytesPerFrame);
}

TEST_F(DriverGameTest, DefaultDiffShowsWhatTheLargestLoadLeftBehind) {
  json j = Report({"diff"});
  EXPECT_EQ(j["a"]["frame"], kLoad2Frame - 1);
  EXPECT_EQ(j["b"]["frame"], kLoad2Frame);
  EXPECT_EQ(j["delta_bytes"], static_cast<int64_t>(kLevel2Bytes) - static_cast<int64_t>(kLevel1Bytes));
  EXPECT_EQ(j["delta_blocks"], kLevel2Blocks - kLevel1Blocks);
  // Level 2's blocks are new, level 1's gone (LoadLevel called from two
  // lines of main: two stacks); nothing else changed.
  ASSERT_EQ(j["sites"].size(), 2u) << j["sites"].dump(1);
  for (const json& s : j["sites"]) EXPECT_EQ(s["location"], GameLocation(kLevelAllocLine)) << s.dump(1);
  EXPECT_EQ(j["sites"][0]["change"], "new");
  EXPECT_EQ(j["sites"][0]["blocks_b"], kLevel2Blocks);
  EXPECT_EQ(j["sites"][0]["bytes_b"], kLevel2Bytes);
  EXPECT_EQ(j["sites"][1]["change"], "gone");
  EXPECT_EQ(j["sites"][1]["blocks_a"], kLevel1Blocks);
  EXPECT_EQ(j["sites"][1]["bytes_a"], kLevel1Bytes);
  // The same as naming the frames.
  json named = Report({"diff", std::to_string(kLoad2Frame - 1), std::to_string(kLoad2Frame)});
  EXPECT_EQ(named["delta_bytes"], j["delta_bytes"]);
}

// The steady frames: between start-up, the loads and the teardown.
json SteadyRangesJson() {
  return json::array({{{"from", 1}, {"to", kLoad1First - 1}},
                      {{"from", kLoad1Last + 1}, {"to", kLoad2Frame - 1}},
                      {{"from", kLoad2Frame + 1}, {"to", kFrames - 1}}});
}

TEST_F(DriverGameTest, HiddenAndLifetimesJudgeSteadyPlay) {
  // Pooled over the run (a range); the default answers per steady phase.
  json hidden = Scope({"hidden", "--from", "0"});
  EXPECT_EQ(hidden["judged_frames"]["judged"], "steady");
  EXPECT_EQ(hidden["judged_frames"]["ranges"], SteadyRangesJson());
  EXPECT_EQ(hidden["judged_frames"]["frame_count"], kSteadyFrames);
  const json* worker = Named(hidden["sites"], kWorkerSiteName);
  ASSERT_NE(worker, nullptr) << hidden["sites"].dump(1);
  EXPECT_EQ((*worker)["allocations"], kSteadyFrames * kWorkerBlocks);
  EXPECT_EQ((*worker)["frames_in_range"], kSteadyFrames);
  json all = Scope({"hidden", "--all-frames"});
  EXPECT_EQ(all["judged_frames"]["judged"], "all");
  EXPECT_EQ(Named(all["sites"], kWorkerSiteName)->at("allocations"), kFrames * kWorkerBlocks);

  // Lifetimes: only the blocks steady play allocated are judged, so the
  // levels and the start-up blocks are in no row.
  json lifetimes = Scope({"lifetimes", "--from", "0"});
  EXPECT_EQ(lifetimes["judged_frames"]["ranges"], SteadyRangesJson());
  json boundaries = json::array();  // every frame of the loads
  for (int f = kLoad1First; f <= kLoad1Last; ++f) boundaries.push_back(f);
  boundaries.push_back(kLoad2Frame);
  EXPECT_EQ(Report({"lifetimes"})["boundary_frames"], boundaries);
  std::map<std::string, json> by_location;
  for (const json& s : lifetimes["sites"]) by_location[s["location"]] = s;
  EXPECT_EQ(by_location.count(GameLocation(kLevelAllocLine)), 0u);
  EXPECT_EQ(by_location.count(GameLocation(kStartupAllocLine)), 0u);
  const json& job = by_location[GameLocation(kWorkerAllocLine)];
  EXPECT_EQ(job["class"], "frame");
  EXPECT_EQ(job["allocations"], kSteadyFrames * kWorkerBlocks);
  EXPECT_EQ(job["freed_same_frame"], kSteadyFrames * kWorkerBlocks);
  // With every frame: load 1's blocks die at load 2 (level), load 2's and
  // start-up's live to the teardown (long-lived).
  json every = Scope({"lifetimes", "--all-frames"});
  std::map<uint64_t, json> levels;  // by allocations
  for (const json& s : every["sites"])
    if (s["location"] == GameLocation(kLevelAllocLine)) levels[s["allocations"]] = s;
  ASSERT_EQ(levels.size(), 2u) << every["sites"].dump(1);
  EXPECT_EQ(levels[kLevel1Blocks]["class"], "level");
  EXPECT_EQ(levels[kLevel1Blocks]["freed_at_boundary"], kLevel1Blocks);
  EXPECT_EQ(levels[kLevel2Blocks]["class"], "long-lived");
  EXPECT_EQ(levels[kLevel2Blocks]["lived_to_end"], kLevel2Blocks);

  // The viewer's Hidden and Lifetimes views say and do the same: a range
  // picked is judged by its steady frames; with none, one steady phase, the
  // longest (the last, 13 frames against 11 and 12), as the report's parts.
  json view = ViewData({"--dump-view-data", "hidden", "--range", "0:" + std::to_string(kFrames - 1)});
  EXPECT_EQ(view["judged_frames"]["judged"], "steady");
  EXPECT_EQ(view["judged_frames"]["ranges"], SteadyRangesJson());
  EXPECT_EQ(Named(view["rows"], kWorkerSiteName)->at("allocations"), kSteadyFrames * kWorkerBlocks);
  json longest = ViewData({"--dump-view-data", "hidden"});
  EXPECT_EQ(longest["scope"]["phase"], "steady 3");
  EXPECT_EQ(longest["judged_frames"]["ranges"], json::array({{{"from", kLoad2Frame + 1}, {"to", kFrames - 1}}}));
  EXPECT_EQ(Named(longest["rows"], kWorkerSiteName)->at("allocations"), (kFrames - 1 - kLoad2Frame) * kWorkerBlocks);
  json view_all = ViewData({"--dump-view-data", "lifetimes", "--all-frames"});
  EXPECT_EQ(view_all["judged_frames"]["judged"], "all");
  bool level_row = false;
  for (const json& row : view_all["rows"]) level_row = level_row || row["location"] == GameLocation(kLevelAllocLine);
  EXPECT_TRUE(level_row);
  for (const json& row : ViewData({"--dump-view-data", "lifetimes"})["rows"])
    EXPECT_NE(row["location"], GameLocation(kLevelAllocLine));
}

// The seeds' advice: the driver's command buffers, freed in order a frame
// after they were made, are rings; one frame arena holds the game's and the
// worker's per-frame blocks; each load needs a level allocator of what it
// kept (the driver's blocks of the load's last frame live into the next).
TEST_F(DriverGameTest, LifetimesSizeRingsTheFrameArenaAndEachLevel) {
  json lifetimes = Scope({"lifetimes", "--from", "0"});
  int driver_sites = 0;
  for (const json& s : lifetimes["sites"]) {
    if (s["module"] != kDriverModule) continue;
    ++driver_sites;
    EXPECT_EQ(s["class"], "ring") << s.dump(1);
    EXPECT_EQ(s["ring_delay_frames"], 1) << s.dump(1);
    // Every free in play: all but those of the frames before each load
    // (freed in the load's first frame, a boundary) and of the last frame
    // (in the teardown).
    const int per_frame = s["allocations"].get<int>() / kSteadyFrames;
    EXPECT_EQ(s["ring_frees"], s["frees"].get<int>() - 3 * per_frame) << s.dump(1);
  }
  EXPECT_GE(driver_sites, 1);
  const json& arena = lifetimes["frame_arena"];
  EXPECT_EQ(arena["frames"], kSteadyFrames);
  const uint64_t frame_bytes = kGameBlocks * kGameBlockBytes + kWorkerBlocks * kWorkerBlockBytes;
  EXPECT_EQ(arena["p99_bytes"], frame_bytes);
  EXPECT_EQ(arena["max_bytes"], frame_bytes);
  EXPECT_EQ(arena["calls_saved"], 2 * (kGameBlocks + kWorkerBlocks) * kSteadyFrames);
  const json loads = Report({"lifetimes"})["level_loads"];
  ASSERT_EQ(loads.size(), 2u) << loads.dump(1);
  const int load1_frames = kLoad1Last - kLoad1First + 1;
  EXPECT_EQ(loads[0]["frames"]["from"], kLoad1First);
  EXPECT_EQ(loads[0]["frames"]["to"], kLoad1Last);
  EXPECT_EQ(loads[0]["allocations"], kLevel1Blocks + load1_frames * kSteadyBlocksPerFrame);
  EXPECT_EQ(loads[0]["bytes_allocated"], kLevel1Bytes + load1_frames * kSteadyBytesPerFrame);
  EXPECT_EQ(loads[0]["kept_blocks"], kLevel1Blocks + kDriverBlocksPerFrame);
  EXPECT_EQ(loads[0]["kept_bytes"], kLevel1Bytes + kDriverBytesPerFrame);
  EXPECT_EQ(loads[1]["frames"]["from"], kLoad2Frame);
  EXPECT_EQ(loads[1]["allocations"], kLevel2Blocks + kSteadyBlocksPerFrame);
  EXPECT_EQ(loads[1]["kept_blocks"], kLevel2Blocks + kDriverBlocksPerFrame);
  EXPECT_EQ(loads[1]["kept_bytes"], kLevel2Bytes + kDriverBytesPerFrame);
}

TEST_F(DriverGameTest, HiddenSitesNameBothSides) {
  json j = Scope({"hidden", "--from", "0"});
  const json* driver = Named(j["sites"], kDriverSiteName);
  ASSERT_NE(driver, nullptr) << j["sites"].dump(1);
  EXPECT_EQ((*driver)["module"], kDriverModule);
  EXPECT_EQ((*driver)["module_class"], "driver");
  EXPECT_EQ((*driver)["location"], GameLocation(kPresentCallLine));
  // Judged over steady play (HiddenAndLifetimesJudgeSteadyPlay).
  EXPECT_EQ((*driver)["allocations"], kSteadyFrames * kDriverBlocksPerFrame);
  EXPECT_EQ((*driver)["allocs_per_frame_median"], kDriverBlocksPerFrame);
  EXPECT_EQ((*driver)["bytes_per_frame_median"], kDriverBytesPerFrame);
  EXPECT_EQ((*driver)["frames_with_allocations"], kSteadyFrames);
  // RecordCommands and UploadStaging: two driver paths (more stacks when the
  // compiler unrolls a loop), one site.
  EXPECT_GE((*driver)["stack_ids"].size(), 2u);
  std::string functions;
  for (const json& f : (*driver)["stack"]) functions += f.value("function", "") + ";";
  EXPECT_NE(functions.find("FakePresent;PresentFrame(int);main;"), std::string::npos) << functions;
  const json* game = Named(j["sites"], kGameSiteName);
  ASSERT_NE(game, nullptr) << j["sites"].dump(1);
  EXPECT_EQ((*game)["module"], "memframe_driver_game");
  EXPECT_EQ((*game)["module_class"], "game");
  EXPECT_EQ((*game)["location"], GameLocation(kUpdateAllocLine));
  EXPECT_EQ((*game)["allocs_per_frame_median"], kGameBlocks);
  EXPECT_EQ((*game)["bytes_per_frame_median"], kGameBlocks * kGameBlockBytes);
  // memframe's own frames are in no stack shown.
  for (const json& s : j["sites"]) {
    for (const json& f : s["stack"])
      EXPECT_EQ(f["module"].get<std::string>().find("libmemframe_agent"), std::string::npos) << s["name"];
  }
}

TEST_F(DriverGameTest, OnlyAndHideKeepClasses) {
  EXPECT_EQ(Report({"hidden", "--hide", "driver"})["module_classes_shown"], json({"game", "engine", "system"}));
  json hidden = Scope({"hidden", "--hide", "driver", "--from", "0"});
  EXPECT_EQ(Named(hidden["sites"], kDriverSiteName), nullptr);
  EXPECT_NE(Named(hidden["sites"], kGameSiteName), nullptr);
  json only = Scope({"sites", "--only", "driver", "--all-frames"});
  ASSERT_FALSE(only["sites"].empty());
  uint64_t allocations = 0;
  for (const json& s : only["sites"]) {
    EXPECT_EQ(s["module_class"], "driver") << s["name"];
    allocations += s["allocations"].get<uint64_t>();
  }
  EXPECT_EQ(allocations, kFrames * kDriverBlocksPerFrame);
}

TEST_F(DriverGameTest, UserRuleComesFirst) {
  json j = Scope({"hidden", "--module-class", "libfake_dri*=engine", "--only", "engine", "--from", "0"});
  const json* driver = Named(j["sites"], kDriverSiteName);
  ASSERT_NE(driver, nullptr) << j["sites"].dump(1);
  EXPECT_EQ((*driver)["module_class"], "engine");
  json summary = Report({"--module-class", "libfake_dri*=engine"});
  for (const json& c : summary["module_classes"]) {
    if (c["module_class"] == "engine") {
      EXPECT_EQ(c["allocations"], kFrames * kDriverBlocksPerFrame);
    }
    if (c["module_class"] == "driver") {
      EXPECT_EQ(c["allocations"], 0);
    }
  }
}

TEST_F(DriverGameTest, ViewerShowsTheSameClasses) {
  json data = ViewData({"--dump-view-data", "hidden"});
  const json* driver = Named(data["rows"], kDriverSiteName);
  ASSERT_NE(driver, nullptr) << data["rows"].dump(1);
  EXPECT_EQ((*driver)["module_class"], "driver");
  EXPECT_EQ((*driver)["module"], kDriverModule);
  EXPECT_EQ((*driver)["allocs_per_frame_median"], kDriverBlocksPerFrame);
  const json* game = Named(data["rows"], kGameSiteName);
  ASSERT_NE(game, nullptr);
  EXPECT_EQ((*game)["module_class"], "game");
  json hidden = ViewData({"--dump-view-data", "hidden", "--hide", "driver"});
  EXPECT_EQ(Named(hidden["rows"], kDriverSiteName), nullptr);
  EXPECT_NE(Named(hidden["rows"], kGameSiteName), nullptr);
  json rule = ViewData({"--dump-view-data", "histogram", "--module-class", "libfake_dri*=system", "--only", "system"});
  bool saw_driver_site = false;
  for (const json& s : rule["sites"]) {
    EXPECT_EQ(s["module_class"], "system") << s["name"];
    saw_driver_site = saw_driver_site || s["module"] == kDriverModule;
  }
  EXPECT_TRUE(saw_driver_site);
}

// The flame graph names the driver under the game's present, with its
// exact share; hiding the driver class hides it.
TEST_F(DriverGameTest, FlameGraphPutsTheDriverUnderThePresent) {
  json data = ViewData({"--dump-view-data", "flame", "--flame-metric", "allocations", "--flame-function", kPresentFunction});
  ASSERT_TRUE(data["function"].is_object()) << data.dump(1);
  const json& f = data["function"];
  EXPECT_EQ(f["blocks"], kFrames * kDriverBlocksPerFrame);
  EXPECT_EQ(f["bytes"], kFrames * kDriverBytesPerFrame);
  ASSERT_EQ(f["callees"].size(), 1u) << f.dump(1);
  EXPECT_EQ(f["callees"][0]["function"], std::string(kDriverModule) + " (driver)");
  EXPECT_EQ(f["callees"][0]["blocks"], kFrames * kDriverBlocksPerFrame);
  ASSERT_EQ(f["callers"].size(), 1u) << f.dump(1);
  EXPECT_EQ(f["callers"][0]["function"], "main");
  json update = ViewData({"--dump-view-data", "flame", "--flame-function", kUpdateFunction});
  ASSERT_TRUE(update["function"].is_object());
  EXPECT_EQ(update["function"]["blocks"], kFrames * kGameBlocks);
  EXPECT_EQ(update["function"]["bytes"], kFrames * kGameBlocks * kGameBlockBytes);
  for (const json& n : data["nodes"])
    EXPECT_EQ(n["function"].get<std::string>().find("libmemframe_agent"), std::string::npos) << n["function"];
  json hidden = ViewData({"--dump-view-data", "flame", "--flame-function", kPresentFunction, "--hide", "driver"});
  EXPECT_TRUE(hidden["function"].is_null()) << hidden["function"].dump(1);
}

// The game's level blocks live at the end of frame f: load 1 adds
// kLevel1BlocksPerFrame in each of its frames, load 2 replaces them all.
std::size_t LevelBytesLive(int f) {
  if (f >= kLoad2Frame) return kLevel2Bytes;
  const int load1_frames = f < kLoad1First ? 0 : std::min(f, kLoad1Last) - kLoad1First + 1;
  return load1_frames * kLevel1BlocksPerFrame * kLevelBlockBytes;
}

// The live-memory series per class, frame by frame: the driver keeps one
// frame's blocks live (it frees the frame before's); the game (main thread
// and worker) frees its per-frame blocks in the frame, and its live bytes
// follow the start-up blocks and the two loads.
void ExpectDriverGameSeries(const json& frames) {
  std::map<uint64_t, json> by_frame;
  for (const json& f : frames) by_frame[f["frame"].get<uint64_t>()] = f["classes"];
  ASSERT_EQ(by_frame.count(0), 1u);
  // Frame 0 also holds the worker's TLS block (driver_game_truth.h), of a
  // size glibc chooses: the game's other blocks are measured from it.
  const uint64_t startup_live = by_frame[0]["game"]["live_bytes"].get<uint64_t>();
  const uint64_t tls_bytes = startup_live - kStartupBlocks * kStartupBlockBytes;
  EXPECT_LT(tls_bytes, 64u << 10);
  EXPECT_EQ(by_frame[0]["game"]["allocations"], kGameBlocks + kWorkerBlocks + kStartupBlocks + 1);
  for (int f = 0; f < kFrames; ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    ASSERT_EQ(by_frame.count(f), 1u);
    const json& driver = by_frame[f]["driver"];
    EXPECT_EQ(driver["allocations"], kDriverBlocksPerFrame);
    EXPECT_EQ(driver["bytes_allocated"], kDriverBytesPerFrame);
    EXPECT_EQ(driver["frees"], f == 0 ? 0 : kDriverBlocksPerFrame);
    EXPECT_EQ(driver["bytes_freed"], f == 0 ? 0 : kDriverBytesPerFrame);
    EXPECT_EQ(driver["live_bytes"], kDriverBytesPerFrame);
    EXPECT_EQ(driver["mapped_bytes"], 0);
    const json& game = by_frame[f]["game"];
    EXPECT_EQ(game["live_bytes"], startup_live + LevelBytesLive(f));
    EXPECT_EQ(game["mapped_bytes"], 0);
    if (f == 0) continue;
    const bool load1 = f >= kLoad1First && f <= kLoad1Last;
    const int level_blocks = load1 ? kLevel1BlocksPerFrame : f == kLoad2Frame ? kLevel2Blocks : 0;
    const int level_freed = f == kLoad2Frame ? kLevel1Blocks : 0;
    EXPECT_EQ(game["allocations"], kGameBlocks + kWorkerBlocks + level_blocks);
    EXPECT_EQ(game["bytes_allocated"],
              kGameBlocks * kGameBlockBytes + kWorkerBlocks * kWorkerBlockBytes + level_blocks * kLevelBlockBytes);
    EXPECT_EQ(game["frees"], kGameBlocks + kWorkerBlocks + level_freed);
    EXPECT_EQ(game["bytes_freed"],
              kGameBlocks * kGameBlockBytes + kWorkerBlocks * kWorkerBlockBytes + level_freed * kLevelBlockBytes);
  }
  // The teardown frees the level, the start-up blocks and the driver's last
  // frame (the worker's TLS block may go at the join).
  ASSERT_EQ(by_frame.count(kFrames), 1u);
  EXPECT_EQ(by_frame[kFrames]["driver"]["live_bytes"], 0);
  EXPECT_LE(by_frame[kFrames]["game"]["live_bytes"].get<uint64_t>(), tls_bytes);
}

TEST_F(DriverGameTest, LiveSeriesPerClassInReportAndViewer) {
  json report = Report({"frames"});
  ExpectDriverGameSeries(report["frames"]);
  json viewer = ViewData({"--dump-view-data", "timeline"});
  ExpectDriverGameSeries(viewer["live"]["frames"]);
  json only_driver = Report({"frames", "--only", "driver"});
  EXPECT_EQ(only_driver["module_classes"], json({"driver"}));
  for (const json& f : only_driver["frames"]) {
    if (f["frame"] < kFrames) {
      EXPECT_EQ(f["live_bytes"], kDriverBytesPerFrame) << f["frame"];
    }
  }
}

// Stacked by the filter, the live graph splits the sites a search keeps
// from the others: LoadLevel's blocks are the levels, frame by frame, and
// the two groups add up to the classes' series.
TEST_F(DriverGameTest, LiveGraphStacksTheFilteredSitesOnTheOthers) {
  const json by_class = ViewData({"--dump-view-data", "timeline"})["live"];
  const json live = ViewData({"--dump-view-data", "timeline", "--live-by", "filter", "--search", kLevelFunction})["live"];
  EXPECT_EQ(live["stacked_by"], "filter");
  EXPECT_EQ(live["groups"], json({"matching", "other"}));
  EXPECT_EQ(live["filter"], std::string("sites matching \"") + kLevelFunction + "\"");
  ASSERT_EQ(live["frames"].size(), by_class["frames"].size());
  for (size_t row = 0; row < live["frames"].size(); ++row) {
    const json& frame = live["frames"][row];
    const int f = frame["frame"].get<int>();
    SCOPED_TRACE("frame " + std::to_string(f));
    const json& matching = frame["groups"]["matching"];
    const bool load1 = f >= kLoad1First && f <= kLoad1Last;
    const int level_blocks = load1 ? kLevel1BlocksPerFrame : f == kLoad2Frame ? kLevel2Blocks : 0;
    if (f < kFrames) {
      EXPECT_EQ(matching["live_bytes"], LevelBytesLive(f));
      EXPECT_EQ(matching["allocations"], level_blocks);
    }
    for (const char* figure : {"live_bytes", "allocations", "frees", "bytes_allocated"}) {
      uint64_t classes = 0;
      for (const auto& [name, c] : by_class["frames"][row]["classes"].items()) classes += c[figure].get<uint64_t>();
      EXPECT_EQ(matching[figure].get<uint64_t>() + frame["groups"]["other"][figure].get<uint64_t>(), classes) << figure;
    }
  }
  // Without a filter there is nothing to split: the classes stay.
  EXPECT_EQ(ViewData({"--dump-view-data", "timeline", "--live-by", "filter"})["live"]["stacked_by"], "class");
}

// The exports' per-class counters, as {class: {figure: [per frame]}}.
using ClassCounters = std::map<std::string, std::map<std::string, std::vector<uint64_t>>>;

// The per-class counters of both trace exports are the frames report's
// per-class series (checked against the truth above), frame by frame, and
// the driver's are its truth.
void ExpectClassCounters(const ClassCounters& counters, const json& report_frames) {
  ASSERT_EQ(counters.count("driver"), 1u);
  ASSERT_EQ(counters.count("game"), 1u);
  for (const auto& [module_class, figures] : counters) {
    for (const char* figure : {"live_bytes", "mapped_bytes", "allocations", "bytes_allocated"}) {
      ASSERT_EQ(figures.count(figure), 1u) << module_class << " " << figure;
      const std::vector<uint64_t>& values = figures.at(figure);
      ASSERT_EQ(values.size(), report_frames.size()) << module_class << " " << figure;
      for (size_t row = 0; row < values.size(); ++row) {
        const json& f = report_frames[row];
        const json& in_report = f["classes"].contains(module_class) ? f["classes"][module_class][figure] : json(0);
        EXPECT_EQ(values[row], in_report) << module_class << " " << figure << " of frame " << f["frame"];
      }
    }
  }
  const auto& driver = counters.at("driver");
  for (int f = 0; f < kFrames; ++f) {
    EXPECT_EQ(driver.at("allocations")[f], kDriverBlocksPerFrame) << f;
    EXPECT_EQ(driver.at("bytes_allocated")[f], kDriverBytesPerFrame) << f;
    EXPECT_EQ(driver.at("live_bytes")[f], kDriverBytesPerFrame) << f;
  }
  // The second load replaces the first level's blocks with its own.
  const auto& game_live = counters.at("game").at("live_bytes");
  EXPECT_EQ(game_live[kLoad2Frame] - game_live[kLoad2Frame - 1], kLevel2Bytes - kLevel1Bytes);
}

TEST_F(DriverGameTest, TraceExportsCarryCountersPerModuleClass) {
  const json report = Report({"frames"})["frames"];
  ASSERT_EQ(report.size(), static_cast<size_t>(kFrames + 1));

  const std::map<std::string, std::string> chrome_names = {{"live heap bytes by class", "live_bytes"},
                                                           {"mapped bytes by class", "mapped_bytes"},
                                                           {"allocations by class", "allocations"},
                                                           {"bytes allocated by class", "bytes_allocated"}};
  const json chrome = e2e::ParseJsonOrDiscard(Export("chrome-json"));
  ASSERT_FALSE(chrome.is_discarded());
  ClassCounters from_chrome;
  for (const json& e : chrome["traceEvents"]) {
    auto figure = chrome_names.find(e.value("name", ""));
    if (e["ph"] != "C" || figure == chrome_names.end()) continue;
    for (const auto& [module_class, value] : e["args"].items())
      from_chrome[module_class][figure->second].push_back(value.get<uint64_t>());
  }
  ExpectClassCounters(from_chrome, report);

  const std::map<std::string, std::string> perfetto_names = {{"live heap bytes", "live_bytes"},
                                                             {"mapped bytes", "mapped_bytes"},
                                                             {"allocations per frame", "allocations"},
                                                             {"bytes allocated per frame", "bytes_allocated"}};
  perfetto::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(Export("perfetto")));
  std::map<uint64_t, std::pair<std::string, std::string>> tracks;  // uuid -> class, figure
  ClassCounters from_perfetto;
  for (const auto& p : trace.packet()) {
    if (p.has_track_descriptor() && p.track_descriptor().has_counter()) {
      // "live heap bytes (driver)"
      const std::string& name = p.track_descriptor().name();
      const size_t open = name.find(" (");
      if (open == std::string::npos) continue;
      auto figure = perfetto_names.find(name.substr(0, open));
      ASSERT_NE(figure, perfetto_names.end()) << name;
      tracks[p.track_descriptor().uuid()] = {name.substr(open + 2, name.size() - open - 3), figure->second};
    } else if (p.has_track_event() && tracks.count(p.track_event().track_uuid())) {
      const auto& [module_class, figure] = tracks[p.track_event().track_uuid()];
      from_perfetto[module_class][figure].push_back(static_cast<uint64_t>(p.track_event().counter_value()));
    }
  }
  ExpectClassCounters(from_perfetto, report);
}

// --thread keeps one thread's events: the worker's alone are its job,
// exactly, and hold no load; the main thread's (by TID) are everything else,
// with both loads; every site row names the thread that allocated there.
TEST_F(DriverGameTest, ThreadFilterKeepsOneThreadsFigures) {
  const json threads = Report({"threads"})["threads"];
  ASSERT_EQ(threads.size(), 2u);
  const json& main_thread = threads[0];
  const std::string main_name = main_thread["name"];
  const std::string main_tid = std::to_string(main_thread["tid"].get<uint32_t>());

  json worker = Report({"--thread", kWorkerName});
  EXPECT_EQ(worker["allocations"], kFrames * kWorkerBlocks);
  EXPECT_EQ(worker["bytes_allocated"], kFrames * kWorkerBlocks * kWorkerBlockBytes);
  EXPECT_EQ(worker["frees"], kFrames * kWorkerBlocks);
  EXPECT_EQ(worker["leaks"]["blocks"], 0);
  EXPECT_EQ(worker["frames"], kFrames);  // the frames stay the game's
  for (const json& c : worker["module_classes"])
    EXPECT_EQ(c["allocations"], c["module_class"] == "game" ? kFrames * kWorkerBlocks : 0) << c;
  json hidden = Scope({"hidden", "--thread", kWorkerName, "--from", "0"});
  ASSERT_EQ(hidden["sites"].size(), 1u) << hidden.dump(1);
  const json& job = hidden["sites"][0];
  EXPECT_EQ(job["name"], kWorkerSiteName);
  EXPECT_EQ(job["location"], GameLocation(kWorkerAllocLine));
  EXPECT_EQ(job["allocs_per_frame_median"], kWorkerBlocks);
  EXPECT_EQ(job["thread"], kWorkerName);
  EXPECT_EQ(job["threads"], json::array({{{"tid", threads[1]["tid"]}, {"name", kWorkerName},
                                          {"allocations", kFrames * kWorkerBlocks}}}));
  const json worker_phases = Report({"phases", "--thread", kWorkerName})["phases"];
  for (const json& p : worker_phases) EXPECT_NE(p["phase"], "load") << p;

  json main = Report({"--thread", main_tid});
  EXPECT_EQ(main["allocations"], main_thread["allocations"]);
  EXPECT_EQ(main["bytes_allocated"], main_thread["bytes"]);
  json main_hidden = Scope({"hidden", "--thread", main_tid, "--from", "0"});
  EXPECT_EQ(Named(main_hidden["sites"], kWorkerSiteName), nullptr);
  const json* driver = Named(main_hidden["sites"], kDriverSiteName);
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ((*driver)["thread"], main_name);
  std::vector<std::pair<int, int>> loads;
  const json main_phases = Report({"phases", "--thread", main_tid})["phases"];
  for (const json& p : main_phases)
    if (p["phase"] == "load") loads.emplace_back(p["frames"]["from"].get<int>(), p["frames"]["to"].get<int>());
  EXPECT_EQ(loads, (std::vector<std::pair<int, int>>{{kLoad1First, kLoad1Last}, {kLoad2Frame, kLoad2Frame}}));

  // Unfiltered, each site names its thread; the viewer says the same.
  json sites = Scope({"sites", "--all-frames"})["sites"];
  ASSERT_NE(Named(sites, kWorkerSiteName), nullptr);
  EXPECT_EQ((*Named(sites, kWorkerSiteName))["thread"], kWorkerName);
  EXPECT_EQ((*Named(sites, kGameSiteName))["thread"], main_name);
  json view = ViewData({"--dump-view-data", "hidden", "--thread", kWorkerName});
  ASSERT_EQ(view["rows"].size(), 1u) << view.dump(1);
  EXPECT_EQ(view["rows"][0]["name"], kWorkerSiteName);
  EXPECT_EQ(view["rows"][0]["thread"], kWorkerName);
  json list = ViewData({"--dump-view-data", "threads", "--thread", kWorkerName});
  ASSERT_EQ(list["rows"].size(), 2u);
  for (const json& row : list["rows"]) {
    EXPECT_EQ(row["shown"], row["name"] == kWorkerName) << row;
    if (row["name"] == kWorkerName) {
      EXPECT_EQ(row["allocations"], kFrames * kWorkerBlocks);
    }
  }
}

TEST_F(DriverGameTest, TextTablesShowClassAndModule) {
  std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_, "hidden"};
  e2e::CommandResult r = e2e::RunCommand(argv, 120);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.standard_output.find("class   module"), std::string::npos) << r.standard_output;
  EXPECT_NE(r.standard_output.find(std::string("driver  libfake_dri.so        ") + kDriverSiteName + "  " + kGameFile +
                                   ":" + std::to_string(kPresentCallLine)),
            std::string::npos)
      << r.standard_output;
}

}  // namespace
}  // namespace memframe
