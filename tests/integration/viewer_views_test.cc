// memframe-viewer end to end: record memframe_demo_game once, then
//  - render every view with --screenshot and check the PNG (exists, the
//    requested size, more than one flat colour);
//  - check that --dump-view-data (the rows and bins the views draw) holds
//    the figures the game was written to produce (demo_truth.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <stb_image.h>

#include "demo_live_series.h"
#include "demo_truth.h"
#include "e2e_helpers.h"

namespace memframe::demo {
namespace {

using nlohmann::json;

// As in demo_game_e2e_test: per-frame sites cover most frames, and a
// software-rendered recorded run takes seconds.
constexpr int kGameplayFrames = 120;
constexpr int kTimeoutSeconds = 180;
// A gameplay frame in which a projectile is fired too (gameplay frame 10).
constexpr int kFrame = FirstGameplayFrame() + 2 * kProjectileInterval;
const std::vector<std::string> kViews = {"timeline",      "histogram", "hidden",    "diff",       "flame",
                                         "fragmentation", "leaks",     "lifetimes", "mismatches", "threads"};

class ViewerViews : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-viewer-e2e");
    capture_ = (scratch_->path() / "demo.mfc").string();
    record_ = e2e::RunCommand({MEMFRAME_CLI_PATH, "run", "-o", capture_, "--", MEMFRAME_DEMO_GAME_PATH, "--frames",
                               std::to_string(kGameplayFrames), "--quiet"},
                              kTimeoutSeconds);
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override { ASSERT_EQ(record_.exit_code, 0) << "recording the demo game failed"; }

  static json Dump(const std::string& view, std::vector<std::string> selection) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", view};
    argv.insert(argv.end(), selection.begin(), selection.end());
    e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json data = e2e::WithStacks(e2e::ParseJsonOrDiscard(r.standard_output));
    EXPECT_FALSE(data.is_discarded()) << r.standard_output;
    return data;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_;
  static inline e2e::CommandResult record_;
};

TEST_F(ViewerViews, EveryViewRendersAPicture) {
  for (const std::string& view : kViews) {
    SCOPED_TRACE(view);
    std::string png = (scratch_->path() / (view + ".png")).string();
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_, "--screenshot", png, "--view", view,
                                     "--frame", std::to_string(kFrame), "--size", "1280x800"};
    ASSERT_EQ(e2e::RunCommand(argv, kTimeoutSeconds).exit_code, 0) << e2e::ShellCommandLine(argv);
    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 4);
    ASSERT_NE(pixels, nullptr) << png << " is not a readable PNG";
    EXPECT_EQ(w, 1280);
    EXPECT_EQ(h, 800);
    // Text, bars and tables make hundreds of colours; a blank or failed
    // render makes one or two.
    std::set<uint32_t> colours;
    for (size_t i = 0; i < static_cast<size_t>(w) * h && colours.size() < 64; i += 7) {
      colours.insert(pixels[i * 4] | pixels[i * 4 + 1] << 8 | pixels[i * 4 + 2] << 16);
    }
    stbi_image_free(pixels);
    EXPECT_GE(colours.size(), 64u);
  }
}

TEST_F(ViewerViews, UnknownViewAndBadCapture) {
  std::string png = (scratch_->path() / "x.png").string();
  EXPECT_EQ(e2e::RunCommand({MEMFRAME_VIEWER_PATH, capture_, "--screenshot", png, "--view", "nope"}, 60).exit_code, 2);
  EXPECT_EQ(e2e::RunCommand({MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "nope"}, 60).exit_code, 2);
  std::string bad = (scratch_->path() / "bad.mfc").string();
  std::ofstream(bad) << "this is not a capture";
  EXPECT_EQ(e2e::RunCommand({MEMFRAME_VIEWER_PATH, bad, "--screenshot", png, "--view", "timeline"}, 60).exit_code, 1);
  EXPECT_EQ(e2e::RunCommand({MEMFRAME_VIEWER_PATH, bad, "--dump-view-data", "leaks"}, 60).exit_code, 1);
}

TEST_F(ViewerViews, TimelineHasEveryFrame) {
  json data = Dump("timeline", {"--frame", std::to_string(kFrame)});
  EXPECT_EQ(data["frames_rendered"], TotalFrames(kGameplayFrames));
  // The table also holds the teardown after the last swap, a frame that never ends.
  EXPECT_GE(data["frame_count"].get<int>(), TotalFrames(kGameplayFrames));
  EXPECT_EQ(data["selection"]["frame"], kFrame);
  EXPECT_GE(data["frames"][LoadFrame()]["allocations"].get<int>(), kLevelBlocks);
}

// The live-memory graph's series: the game class frame by frame, exactly;
// the class toggles (--only) leave only the classes kept.
TEST_F(ViewerViews, LiveGraphHoldsTheGameClassSeries) {
  json data = Dump("timeline", {});
  ASSERT_TRUE(data.contains("live")) << data.dump(1).substr(0, 2000);
  const json& live = data["live"];
  ExpectDemoGameSeries(live["frames"], kGameplayFrames);
  ASSERT_EQ(live["frames"].size(), data["frames"].size());
  for (size_t i = 0; i < data["frames"].size(); ++i) {
    uint64_t allocations = 0;
    for (const auto& [name, c] : live["frames"][i]["classes"].items()) allocations += c["allocations"].get<uint64_t>();
    EXPECT_EQ(allocations, data["frames"][i]["allocations"].get<uint64_t>()) << i;
  }
  json game_only = Dump("timeline", {"--only", "game"});
  EXPECT_EQ(game_only["live"]["module_classes"], json({"game"}));
  ExpectDemoGameSeries(game_only["live"]["frames"], kGameplayFrames);
}

TEST_F(ViewerViews, HistogramOfAGameplayFrame) {
  json data = Dump("histogram", {"--frame", std::to_string(kFrame)});
  ASSERT_EQ(data["range"]["from"], kFrame);
  ASSERT_EQ(data["range"]["to"], kFrame);

  auto labels = e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kSpawnDamageLabelFunction));
  EXPECT_EQ(labels.allocations, static_cast<uint64_t>(kHitsPerFrame));
  EXPECT_EQ(labels.bytes, kHitsPerFrame * kDamageLabelBytes);
  auto hud = e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kBuildHudTextFunction));
  EXPECT_EQ(hud.allocations, 1u);
  EXPECT_EQ(hud.bytes, kHudTextAllocationBytes);
  auto projectile = e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kFireProjectileFunction));
  EXPECT_EQ(projectile.allocations, 1u);
  EXPECT_EQ(projectile.bytes, kProjectileBytes);

  // The bins add up to the frame, and the DamageLabel bin holds at least
  // the game's own allocations of that size class.
  uint64_t bin_total = 0, label_bin = 0, label_bin_bound = 0;
  for (const json& bin : data["histogram"]["bins"]) {
    bin_total += bin["allocations"].get<uint64_t>();
    if (bin["size_min"] <= kDamageLabelBytes && kDamageLabelBytes <= bin["size_max"]) label_bin = bin["allocations"];
  }
  EXPECT_EQ(bin_total, data["allocations"].get<uint64_t>());
  EXPECT_EQ(data["histogram"]["allocations"], data["allocations"]);
  static_assert(kDamageLabelBytes >= 32 && kDamageLabelBytes < 64 && kHudTextAllocationBytes >= 32 &&
                kHudTextAllocationBytes < 64 && kProjectileBytes >= 32 && kProjectileBytes < 64,
                "the three game allocations share the [32, 64) bin");
  EXPECT_GE(label_bin, static_cast<uint64_t>(kHitsPerFrame + 2));
  // ... and no more than the sites whose sizes can fall in that bin.
  for (const json& site : data["sites"]) {
    if (site["size_min"] <= 63 && site["size_max"] >= 32) label_bin_bound += site["allocations"].get<uint64_t>();
  }
  EXPECT_LE(label_bin, label_bin_bound);
}

TEST_F(ViewerViews, HistogramOfTheGameplayRange) {
  json data = Dump("histogram", {"--range", std::to_string(FirstGameplayFrame()) + ":" +
                                                std::to_string(LastGameplayFrame(kGameplayFrames))});
  auto labels = e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kSpawnDamageLabelFunction));
  EXPECT_EQ(labels.allocations, static_cast<uint64_t>(DamageLabelCount(kGameplayFrames)));
  auto projectiles = e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kFireProjectileFunction));
  EXPECT_EQ(projectiles.allocations, static_cast<uint64_t>(ProjectileCount(kGameplayFrames)));
}

TEST_F(ViewerViews, HiddenTableShowsThePerFrameSites) {
  json data = Dump("hidden", {});
  auto labels = e2e::SitesWithFunctionInStack(data["rows"], kSpawnDamageLabelFunction);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0]["allocs_per_frame_median"], kHitsPerFrame);
  EXPECT_EQ(labels[0]["bytes_per_frame_median"], kHitsPerFrame * kDamageLabelBytes);
  EXPECT_EQ(labels[0]["frames_with_allocations"], SteadyGameplayFrames(kGameplayFrames));  // as the CLI's
  EXPECT_NE(labels[0]["location"].get<std::string>().find("entities.cpp:"), std::string::npos);
  auto hud = e2e::SitesWithFunctionInStack(data["rows"], kBuildHudTextFunction);
  ASSERT_EQ(hud.size(), 1u);
  EXPECT_EQ(hud[0]["bytes_per_frame_median"], kHudTextAllocationBytes);
  // A projectile every 5th frame is not "hidden per-frame" churn.
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(data["rows"], kFireProjectileFunction).empty());
}

// The hidden table and `memframe report hidden --phase` list the same sites
// (stacks that differ only in the driver grouped as one, the game's own
// first), with the same figures: the table judges one steady phase, as the
// report does, never the title and gameplay pooled. With nothing picked it
// opens on the longest, gameplay; --phase picks another.
TEST_F(ViewerViews, HiddenTableListsWhatTheReportLists) {
  for (const std::string phase : {"", "steady 2", "steady 1"}) {
    SCOPED_TRACE("--phase '" + phase + "'");
    json view = Dump("hidden", phase.empty() ? std::vector<std::string>{} : std::vector<std::string>{"--phase", phase});
    const std::string judged = phase.empty() ? "steady 2" : phase;
    EXPECT_EQ(view["scope"]["phase"], judged);
    EXPECT_EQ(view["scope"]["source"], phase.empty() ? "longest steady phase" : "range picked");
    std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_, "hidden", "--phase", judged, "--json"};
    e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
    ASSERT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json report = e2e::ParseJsonOrDiscard(r.standard_output);
    ASSERT_FALSE(report.is_discarded()) << r.standard_output;
    EXPECT_EQ(view["range"], report["phases"][0]["frames"]);
    const json& rows = view["rows"];
    const json sites = e2e::OneScopeRows(report);
    ASSERT_FALSE(sites.empty());
    ASSERT_GE(rows.size(), sites.size());  // the report may list fewer
    for (size_t i = 0; i < sites.size(); ++i) {
      SCOPED_TRACE("site " + std::to_string(i));
      for (const char* key : {"stack_id", "stack_ids", "allocations", "bytes", "frames_with_allocations",
                              "allocs_per_frame_median", "bytes_per_frame_median", "function", "location", "via",
                              "from_game"})
        EXPECT_EQ(rows[i][key], sites[i][key]) << key;
    }
  }
}

// Lifetime advice judges a phase as `memframe report lifetimes --phase`
// does, and gives advice only for the code the game can change: the same
// sites, classes and owners.
TEST_F(ViewerViews, LifetimesOfAPhaseAreTheReports) {
  json view = Dump("lifetimes", {"--phase", "steady 2"});
  EXPECT_EQ(view["scope"]["phase"], "steady 2");
  std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_, "lifetimes", "--phase", "steady 2", "--json"};
  e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
  const json sites = e2e::OneScopeRows(e2e::ParseJsonOrDiscard(r.standard_output));
  ASSERT_EQ(view["rows"].size(), sites.size());
  size_t owned = 0, driver = 0;
  for (size_t i = 0; i < sites.size(); ++i) {
    const json& row = view["rows"][i];
    EXPECT_EQ(row["stack_id"], sites[i]["stack_id"]);
    EXPECT_EQ(row["class"], sites[i]["class"]);
    EXPECT_EQ(row["owned"], sites[i]["owned"]);
    EXPECT_EQ(row["owned"], row["module_class"] == "game" || row["module_class"] == "engine");
    owned += row["owned"].get<bool>();
    driver += row["module_class"] == "driver";
  }
  EXPECT_GT(owned, 0u);
  EXPECT_GT(driver, 0u);  // the software renderer allocates every frame: counted, given no advice
}

TEST_F(ViewerViews, LeaksViewShowsTheNavMesh) {
  json data = Dump("leaks", {});
  auto nav = e2e::SumSites(e2e::SitesWithFunctionInStack(data["rows"], kLeakingFunction));
  uint64_t blocks = 0;
  for (const json& row : e2e::SitesWithFunctionInStack(data["rows"], kLeakingFunction)) blocks += row["blocks"].get<uint64_t>();
  EXPECT_EQ(blocks, static_cast<uint64_t>(kLeakedBlocks));
  EXPECT_EQ(nav.bytes, kLeakedBytes);
  // Nothing else the game allocates is left behind.
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(data["rows"], kSpawnDamageLabelFunction).empty());
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(data["rows"], kFireProjectileFunction).empty());
  // The demo exits from main: what it left live is leaked, as the header says.
  EXPECT_EQ(data["are_leaks"], true);
  EXPECT_EQ(data["program_end"], "exited with status 0");
  EXPECT_EQ(data["header"]["live_at_end"]["word"], "leaked");
  EXPECT_EQ(data["header"]["live_at_end"]["bytes"], data["total_bytes"]);
  // No row of the table reads like another.
  std::set<std::string> names;
  for (const json& row : data["rows"]) {
    std::string name = row["function"].get<std::string>() + " " + row["location"].get<std::string>() + " " +
                       row["via"].get<std::string>() + " " + row["module"].get<std::string>();
    EXPECT_TRUE(names.insert(name).second) << "two leak rows read " << name;
  }
}

TEST_F(ViewerViews, DiffAcrossTheLevelLoadHoldsTheLevel) {
  const std::string before = std::to_string(LoadFrame() - 1), after = std::to_string(LoadFrame());
  json data = Dump("diff", {"--range", before + ":" + before, "--range-b", after + ":" + after});
  EXPECT_EQ(data["a"]["frame"], LoadFrame() - 1);
  EXPECT_EQ(data["b"]["frame"], LoadFrame());
  auto level = e2e::SitesWithFunctionInStack(data["rows"], kLoadLevelFunction);
  int64_t bytes = 0, blocks = 0;
  for (const json& row : level) {
    EXPECT_EQ(row["change"], "new") << row["function"];
    bytes += row["delta_bytes"].get<int64_t>();
    blocks += row["delta_blocks"].get<int64_t>();
  }
  EXPECT_EQ(bytes, static_cast<int64_t>(kLevelBytes));
  EXPECT_EQ(blocks, kLevelBlocks);
  // The bottom-up roots name the level's allocating functions.
  int64_t root_bytes = 0;
  for (const json& root : data["bottom_up"]) {
    std::string f = root["function"];
    if (f.find(kLoadLevelFunction) != std::string::npos || f.find(kLeakingFunction) != std::string::npos)
      root_bytes += root["delta_bytes"].get<int64_t>();
  }
  EXPECT_EQ(root_bytes, static_cast<int64_t>(kLevelBytes));
}

// With nothing selected the diff opens across the largest load, as
// `memframe report diff` does: the level and the driver's work for it.
TEST_F(ViewerViews, TheDefaultDiffIsAcrossTheLevelLoad) {
  json data = Dump("diff", {});
  EXPECT_EQ(data["a"]["frame"], LoadFrame() - 1);
  EXPECT_EQ(data["b"]["frame"], FirstGameplayFrame());
  int64_t bytes = 0;
  for (const json& row : e2e::SitesWithFunctionInStack(data["rows"], kLoadLevelFunction))
    bytes += row["delta_bytes"].get<int64_t>();
  EXPECT_EQ(bytes, static_cast<int64_t>(kLevelBytes));
  // The timeline bands the same phases the report lists.
  json timeline = Dump("timeline", {});
  json load = json::object();
  for (const json& p : timeline["phases"])
    if (p["phase"] == "load") load = p;
  EXPECT_EQ(load.value("from", -1), LoadFrame()) << timeline["phases"].dump();
  EXPECT_EQ(load.value("to", -1), FirstGameplayFrame());
}

TEST_F(ViewerViews, DiffAcrossTheUnloadReleasesAllButTheNavMesh) {
  const std::string load = std::to_string(LoadFrame()), unload = std::to_string(UnloadFrame(kGameplayFrames));
  json data = Dump("diff", {"--range", load + ":" + load, "--range-b", unload + ":" + unload});
  int64_t level_bytes = 0;
  for (const json& row : e2e::SitesWithFunctionInStack(data["rows"], kLoadLevelFunction))
    level_bytes += row["delta_bytes"].get<int64_t>();
  EXPECT_EQ(level_bytes, -static_cast<int64_t>(kLevelBytes - kNavMeshBytes));
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(data["rows"], kLeakingFunction).empty());
}

TEST_F(ViewerViews, FragmentationFiguresAddUpToTheLiveHeap) {
  json data = Dump("fragmentation", {"--frame", std::to_string(kFrame)});
  EXPECT_EQ(data["frame"], kFrame);
  // Every live block is in a heap region or a mapping, and the frame
  // table's live total counts every live block.
  EXPECT_EQ(data["heap"]["live_bytes"].get<uint64_t>() + data["mapped"]["live_bytes"].get<uint64_t>(),
            data["live_bytes_at_frame"].get<uint64_t>());
  EXPECT_GE(data["heap"]["live_bytes"].get<uint64_t>(), kLevelBytes);
  uint64_t span = 0;
  for (const json& r : data["regions"]) {
    EXPECT_LE(r["live_bytes"].get<uint64_t>() + r["free_bytes"].get<uint64_t>(), r["span"].get<uint64_t>());
    EXPECT_GE(r["fragmentation"].get<double>(), 0.0);
    EXPECT_LT(r["fragmentation"].get<double>(), 1.0);
    if (r["kind"] == "heap") span += r["span"].get<uint64_t>();
  }
  EXPECT_EQ(span, data["heap"]["span"].get<uint64_t>());
}

TEST_F(ViewerViews, LifetimesClassTheGameSites) {
  json data = Dump("lifetimes", {});
  // Labels live 45 frames, all 48 bytes, freed in the order they were made:
  // a ring. The HUD string dies in the frame that made it: a frame arena.
  auto labels = e2e::SitesWithFunctionInStack(data["rows"], kSpawnDamageLabelFunction);
  ASSERT_FALSE(labels.empty());
  for (const json& s : labels) {
    EXPECT_EQ(s["class"], "ring");
    EXPECT_EQ(s["size_max"], kDamageLabelBytes);
    EXPECT_EQ(s["peak_live_blocks"], kHitsPerFrame * kLabelLifetimeFrames);
  }
  auto hud = e2e::SitesWithFunctionInStack(data["rows"], kBuildHudTextFunction);
  ASSERT_FALSE(hud.empty());
  for (const json& s : hud) EXPECT_EQ(s["class"], "frame");
  for (const json& s : e2e::SitesWithFunctionInStack(data["rows"], kLeakingFunction)) EXPECT_EQ(s["class"], "long-lived");
}

// The flame graph's nodes and the callers / callees of a function, against
// the truth: what a gameplay frame allocated, and what is live during play.
TEST_F(ViewerViews, FlameGraphOfAGameplayFrame) {
  json data = Dump("flame", {"--frame", std::to_string(kFrame), "--flame-metric", "allocations", "--flame-function",
                             std::string(kSpawnDamageLabelFunction)});
  EXPECT_EQ(data["metric"], "allocations");
  ASSERT_TRUE(data["function"].is_object()) << data.dump(1);
  const json& f = data["function"];
  EXPECT_NE(f["function"].get<std::string>().find(kSpawnDamageLabelFunction), std::string::npos);
  EXPECT_EQ(f["blocks"], kHitsPerFrame);
  EXPECT_EQ(f["bytes"], kHitsPerFrame * kDamageLabelBytes);
  ASSERT_EQ(f["callers"].size(), 1u) << f.dump(1);
  EXPECT_NE(f["callers"][0]["function"].get<std::string>().find("UpdateGameplay"), std::string::npos);
  EXPECT_EQ(f["callers"][0]["blocks"], kHitsPerFrame);
  // `new` is the runtime's: the label is allocated in the function itself.
  ASSERT_EQ(f["callees"].size(), 1u) << f.dump(1);
  EXPECT_EQ(f["callees"][0]["function"], "(self)");
  EXPECT_EQ(f["callees"][0]["bytes"], kHitsPerFrame * kDamageLabelBytes);
  // The root is the whole frame, as the frame detail counts it; every node
  // holds no more than its parent, and memframe's own frames are in none.
  json detail = Dump("histogram", {"--frame", std::to_string(kFrame)});
  const json& nodes = data["nodes"];
  EXPECT_EQ(nodes[0]["blocks"], detail["allocations"]);
  EXPECT_EQ(nodes[0]["bytes"], detail["bytes_allocated"]);
  for (const json& n : nodes) {
    if (n["parent"].is_null()) continue;
    EXPECT_LE(n["blocks"].get<uint64_t>(), nodes[n["parent"].get<size_t>()]["blocks"].get<uint64_t>());
    std::string function = n["function"];
    EXPECT_EQ(function.find("memframe::agent"), std::string::npos) << function;
    EXPECT_NE(function, "malloc");
  }
}

TEST_F(ViewerViews, FlameGraphOfTheLiveHeap) {
  const std::string frame = std::to_string(LastGameplayFrame(kGameplayFrames));
  json data = Dump("flame", {"--frame", frame, "--flame-metric", "live", "--flame-function",
                             std::string(kLoadLevelFunction)});
  ASSERT_TRUE(data["function"].is_object()) << data.dump(1);
  const json& f = data["function"];
  EXPECT_EQ(f["blocks"], kLevelBlocks);
  EXPECT_EQ(f["bytes"], kLevelBytes);
  ASSERT_EQ(f["callers"].size(), 1u) << f.dump(1);
  EXPECT_NE(f["callers"][0]["function"].get<std::string>().find("RunGame"), std::string::npos);
  EXPECT_EQ(f["callers"][0]["bytes"], kLevelBytes);
  ASSERT_EQ(f["callees"].size(), 2u) << f.dump(1);
  EXPECT_EQ(f["callees"][0]["function"], "(self)");
  EXPECT_EQ(f["callees"][0]["blocks"], kLevelBlocks - 1);
  EXPECT_EQ(f["callees"][0]["bytes"], kLevelBytes - kNavMeshBytes);
  EXPECT_NE(f["callees"][1]["function"].get<std::string>().find(kLeakingFunction), std::string::npos);
  EXPECT_EQ(f["callees"][1]["bytes"], kNavMeshBytes);
  // The root is the live heap at the end of that frame.
  json fragmentation = Dump("fragmentation", {"--frame", frame});
  EXPECT_EQ(data["nodes"][0]["bytes"], fragmentation["live_bytes_at_frame"]);
  // The class toggles apply: hiding the game hides the level (and the
  // labels and projectiles live then).
  json hidden = Dump("flame", {"--frame", frame, "--flame-metric", "live", "--flame-function",
                               std::string(kLoadLevelFunction), "--hide", "game"});
  EXPECT_TRUE(hidden["function"].is_null()) << hidden["function"].dump(1);
  EXPECT_LE(hidden["nodes"][0]["bytes"].get<uint64_t>() + kLevelBytes, data["nodes"][0]["bytes"].get<uint64_t>());
}

// The tables' filter bar through the command line: search (any case),
// grouping by function, and a size bin, each with the truth's figures.
TEST_F(ViewerViews, SearchAndGroupingOfTheLevelLoad) {
  const std::string load = std::to_string(LoadFrame());
  const uint64_t own_bytes = kTerrainBytes + kTileMapBytes + kSpawnTableBytes;  // LoadLevel's own three blocks
  json split = Dump("histogram", {"--frame", load, "--search", "loadlevel"});
  EXPECT_EQ(split["filter"]["search"], "loadlevel");
  uint64_t allocations = 0, bytes = 0;
  // LoadLevel's own three blocks, and the nav mesh of LoadNavMesh, which
  // it calls: a search finds what a function led to.
  for (const json& row : split["sites"]) {
    EXPECT_TRUE(e2e::StackContains(row, kLoadLevelFunction)) << row["name"];
    allocations += row["allocations"].get<uint64_t>();
    bytes += row["bytes"].get<uint64_t>();
  }
  EXPECT_EQ(split["sites"].size(), 4u) << split["sites"].dump(1);
  EXPECT_EQ(allocations, 4u);
  EXPECT_EQ(bytes, kLevelBytes);
  // Three lines of one function called from one place: one row (and the
  // nav mesh's).
  json grouped = Dump("histogram", {"--frame", load, "--search", "LOADLEVEL", "--group-functions"});
  ASSERT_EQ(grouped["sites"].size(), 2u) << grouped["sites"].dump(1);
  const auto own = std::find_if(grouped["sites"].begin(), grouped["sites"].end(), [](const json& row) {
    return row["name"].get<std::string>().find(kLoadLevelFunction) != std::string::npos;
  });
  ASSERT_NE(own, grouped["sites"].end());
  EXPECT_EQ((*own)["allocations"], 3);
  EXPECT_EQ((*own)["bytes"], own_bytes);
  EXPECT_EQ((*own)["stack_ids"].size(), 3u);
  // The leak stays one block, grouped or not.
  json leaks = Dump("leaks", {"--group-functions", "--search", std::string(kLeakingFunction)});
  ASSERT_EQ(leaks["rows"].size(), 1u) << leaks["rows"].dump(1);
  EXPECT_EQ(leaks["rows"][0]["blocks"], kLeakedBlocks);
  EXPECT_EQ(leaks["rows"][0]["bytes"], kLeakedBytes);
  // Searching a file name finds the HUD's one hidden site.
  json hidden = Dump("hidden", {"--search", "HUD.CPP"});
  ASSERT_EQ(hidden["rows"].size(), 1u) << hidden["rows"].dump(1);
  EXPECT_EQ(hidden["rows"][0]["bytes_per_frame_median"], kHudTextAllocationBytes);
}

TEST_F(ViewerViews, SizeBinKeepsTheSitesOfThatSize) {
  // Bin 6 is [32, 64): the labels, the HUD string and the projectile.
  json all = Dump("histogram", {"--frame", std::to_string(kFrame)});
  json data = Dump("histogram", {"--frame", std::to_string(kFrame), "--size-bin", "6"});
  EXPECT_EQ(data["filter"]["size_bin"]["min"], 32);
  EXPECT_EQ(data["filter"]["size_bin"]["max"], 63);
  uint64_t bin_allocations = 0, bin_bytes = 0;
  for (const json& bin : all["histogram"]["bins"])
    if (bin["bin"] == 6) {
      bin_allocations = bin["allocations"];
      bin_bytes = bin["bytes"];
    }
  uint64_t allocations = 0, bytes = 0;
  for (const json& row : data["sites"]) {
    allocations += row["allocations"].get<uint64_t>();
    bytes += row["bytes"].get<uint64_t>();
  }
  EXPECT_EQ(allocations, bin_allocations);
  EXPECT_EQ(bytes, bin_bytes);
  auto labels = e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kSpawnDamageLabelFunction));
  EXPECT_EQ(labels.allocations, static_cast<uint64_t>(kHitsPerFrame));
  EXPECT_EQ(labels.bytes, kHitsPerFrame * kDamageLabelBytes);
  EXPECT_EQ(e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kBuildHudTextFunction)).bytes,
            kHudTextAllocationBytes);
  EXPECT_EQ(e2e::SumSites(e2e::SitesWithFunctionInStack(data["sites"], kFireProjectileFunction)).bytes,
            kProjectileBytes);
  // The nav mesh (12 KiB) is not of that size: the leaks table drops it.
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(Dump("leaks", {"--size-bin", "6"})["rows"], kLeakingFunction).empty());
}

// The game runs on its main thread (named after the executable, cut to 15
// bytes, as are threads the driver starts from it): the Threads list has
// it, the tables name it, and keeping only it (by TID) keeps every game
// figure exactly; any other thread (llvmpipe's) made none of the game's
// allocations.
TEST_F(ViewerViews, ThreadsListAndThreadFilter) {
  const std::string main_name = "memframe_demo_g";
  json threads = Dump("threads", {});
  json main_row;
  for (const json& row : threads["rows"]) {
    EXPECT_EQ(row["shown"], true);
    if (row["name"] == main_name && main_row.is_null()) main_row = row;  // by allocations: the game's
  }
  ASSERT_FALSE(main_row.is_null()) << threads.dump(1);
  const int game_blocks = DamageLabelCount(kGameplayFrames) + kGameplayFrames + ProjectileCount(kGameplayFrames) +
                          kLevelBlocks;
  EXPECT_GE(main_row["allocations"].get<int>(), game_blocks);
  const std::string tid = std::to_string(main_row["tid"].get<uint32_t>());

  json hidden = Dump("hidden", {});
  auto labels = e2e::SitesWithFunctionInStack(hidden["rows"], kSpawnDamageLabelFunction);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0]["thread"], main_name);

  // Every frame judged: the first gameplay frame is the load's.
  json kept = Dump("hidden", {"--thread", tid, "--all-frames"});
  labels = e2e::SitesWithFunctionInStack(kept["rows"], kSpawnDamageLabelFunction);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0]["allocations"], DamageLabelCount(kGameplayFrames));
  EXPECT_EQ(labels[0]["allocs_per_frame_median"], kHitsPerFrame);
  EXPECT_EQ(labels[0]["frames_with_allocations"], kGameplayFrames);
  json leaks = Dump("leaks", {"--thread", main_name});
  auto nav = e2e::SitesWithFunctionInStack(leaks["rows"], kLeakingFunction);
  ASSERT_EQ(nav.size(), 1u);
  EXPECT_EQ(nav[0]["bytes"], kLeakedBytes);
  EXPECT_EQ(nav[0]["thread"], main_name);  // of the row's stacks, which it lists
  EXPECT_FALSE(nav[0]["stack_ids"].empty());
  json listed = Dump("threads", {"--thread", tid});
  for (const json& row : listed["rows"]) EXPECT_EQ(row["shown"], row["tid"] == main_row["tid"]) << row;

  // The CLI says the same: the labels' site is the main thread's alone.
  std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_, "sites", "--thread", tid,
                                   "--all-frames", "--json"};
  e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
  auto sites = e2e::SitesWithFunctionInStack(e2e::OneScopeRows(e2e::WithStacks(e2e::ParseJsonOrDiscard(r.standard_output))),
                                             kSpawnDamageLabelFunction);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0]["threads"], json::parse("[{\"tid\":" + tid + ",\"name\":\"" + main_name +
                                             "\",\"allocations\":" +
                                             std::to_string(DamageLabelCount(kGameplayFrames)) + "}]"));

  for (const json& row : threads["rows"]) {
    if (row["tid"] == main_row["tid"] || row["allocations"] == 0) continue;
    json other = Dump("hidden", {"--thread", std::to_string(row["tid"].get<uint32_t>())});
    EXPECT_TRUE(e2e::SitesWithFunctionInStack(other["rows"], kSpawnDamageLabelFunction).empty()) << row;
  }

  // Errors go to stderr, which RunCommand leaves to the log: a shell joins it.
  auto with_stderr = [](const std::vector<std::string>& argv) {
    return e2e::RunCommand({"/bin/sh", "-c", e2e::ShellCommandLine(argv) + " 2>&1"}, 60);
  };
  e2e::CommandResult unknown =
      with_stderr({MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "leaks", "--thread", "nobody"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.standard_output.find("--thread nobody: no thread has that name (threads: "), std::string::npos)
      << unknown.standard_output;
  EXPECT_NE(unknown.standard_output.find(main_name + " " + tid), std::string::npos) << unknown.standard_output;
  e2e::CommandResult refused =
      with_stderr({MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "fragmentation", "--thread", tid});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.standard_output.find("view 'fragmentation' cannot honour --thread"), std::string::npos)
      << refused.standard_output;
}

// Every figure a view shows follows the class filter its table follows:
// the frame detail's header and histogram as `memframe report frames --only`
// counts them and as the game was written; the lifetime summary and its
// frame arena, the leaks' totals.
TEST_F(ViewerViews, TheClassFilterReachesTheHeadersAndTheHistogram) {
  constexpr int g = kFrame - FirstGameplayFrame();
  json frame = Dump("histogram", {"--frame", std::to_string(kFrame), "--only", "game"});
  EXPECT_EQ(frame["filter"]["classes"], "game");
  EXPECT_EQ(frame["allocations"], GameAllocations(g));
  EXPECT_EQ(frame["bytes_allocated"], GameBytesAllocated(g));
  EXPECT_EQ(frame["frees"], GameFrees(g));
  EXPECT_EQ(frame["histogram"]["allocations"], GameAllocations(g));
  EXPECT_EQ(frame["histogram"]["bytes"], GameBytesAllocated(g));
  ASSERT_EQ(frame["histogram"]["bins"].size(), 1u) << frame["histogram"].dump();  // labels, HUD, projectile: 32..63 B
  EXPECT_EQ(frame["histogram"]["bins"][0]["bin"], 6);

  // Every frame: the CLI's frames report of the game class, added up.
  json all = Dump("histogram", {"--only", "game"});
  std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_, "frames", "--only", "game", "--json"};
  e2e::CommandResult r = e2e::RunCommand(argv, kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
  json report = e2e::ParseJsonOrDiscard(r.standard_output);
  uint64_t allocations = 0, frees = 0, bytes = 0, freed = 0;
  for (const json& f : report["frames"]) {
    allocations += f["allocations"].get<uint64_t>();
    frees += f["frees"].get<uint64_t>();
    bytes += f["bytes_allocated"].get<uint64_t>();
    freed += f["bytes_freed"].get<uint64_t>();
  }
  EXPECT_EQ(all["allocations"], allocations);
  EXPECT_EQ(all["frees"], frees);
  EXPECT_EQ(all["bytes_allocated"], bytes);
  EXPECT_EQ(all["bytes_freed"], freed);
  EXPECT_EQ(all["histogram"]["allocations"], allocations);
  EXPECT_EQ(all["live_bytes_at_end"], report["frames"].back()["live_bytes"]);

  // Lifetimes: the summary counts the rows' sites; the game's one frame
  // site is the HUD string, so the frame arena is one HUD string.
  json lifetimes = Dump("lifetimes", {"--only", "game"});
  uint64_t sites = 0, hud_calls = 0;
  for (const json& c : lifetimes["classes"]) sites += c["sites"].get<uint64_t>();
  EXPECT_EQ(sites, lifetimes["rows"].size());
  for (const json& row : e2e::SitesWithFunctionInStack(lifetimes["rows"], kBuildHudTextFunction))
    hud_calls += row["allocations"].get<uint64_t>() + row["frees"].get<uint64_t>();
  EXPECT_EQ(lifetimes["frame_arena"]["p99_bytes"], kHudTextAllocationBytes);
  EXPECT_EQ(lifetimes["frame_arena"]["max_bytes"], kHudTextAllocationBytes);
  EXPECT_EQ(lifetimes["frame_arena"]["calls_saved"], hud_calls);
  EXPECT_GT(hud_calls, 0u);

  // Leaks: the game left the nav mesh, and nothing else.
  json leaks = Dump("leaks", {"--only", "game"});
  EXPECT_EQ(leaks["total_bytes"], kLeakedBytes);
  EXPECT_EQ(leaks["total_blocks"], kLeakedBlocks);
}

// No two rows of a table read alike, even where the stacks part only inside
// the driver (the callers cannot tell those apart: the row names the frame
// where they part) or past the via's shortened length.
TEST_F(ViewerViews, NoTwoRowsReadAlike) {
  for (const auto& [view, key] : {std::pair{"histogram", "sites"}, std::pair{"lifetimes", "rows"},
                                  std::pair{"leaks", "rows"}}) {
    json data = Dump(view, {});
    std::set<std::pair<std::string, std::string>> seen;
    for (const json& row : data[key])
      EXPECT_TRUE(seen.emplace(row["name"], row["location"]).second)
          << view << ": two rows read " << row["name"] << " " << row["location"];
    EXPECT_GT(seen.size(), 10u) << view;
  }
}

// --range reaches every view that judges many frames: Hidden, Lifetimes,
// Threads and Leaks take the range picked, and say so.
TEST_F(ViewerViews, TheRangePickedReachesEveryTab) {
  const int from = FirstGameplayFrame() + 10, to = LastGameplayFrame(kGameplayFrames) - 10;
  const std::string range = std::to_string(from) + ":" + std::to_string(to);
  const json picked = {{"from", from}, {"to", to}};
  json hidden = Dump("hidden", {"--range", range});
  EXPECT_EQ(hidden["range"], picked);
  EXPECT_EQ(hidden["judged_frames"]["frame_count"], to - from + 1);
  auto labels = e2e::SitesWithFunctionInStack(hidden["rows"], kSpawnDamageLabelFunction);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0]["allocations"], (to - from + 1) * kHitsPerFrame);

  json lifetimes = Dump("lifetimes", {"--range", range});
  EXPECT_EQ(lifetimes["range"], picked);
  EXPECT_EQ(lifetimes["judged_frames"]["frame_count"], to - from + 1);
  for (const json& s : e2e::SitesWithFunctionInStack(lifetimes["rows"], kSpawnDamageLabelFunction))
    EXPECT_EQ(s["allocations"], (to - from + 1) * kHitsPerFrame);

  // Threads: every thread's counts over the range add up to the frames'.
  json threads = Dump("threads", {"--range", range});
  EXPECT_EQ(threads["range"], picked);
  json timeline = Dump("timeline", {});
  uint64_t allocations = 0, frees = 0;
  for (const json& f : timeline["frames"])
    if (f["frame"] >= from && f["frame"] <= to) allocations += f["allocations"].get<uint64_t>();
  json frames = Dump("histogram", {"--range", range});
  frees = frames["frees"];
  uint64_t thread_allocations = 0, thread_frees = 0, thread_freed = 0;
  for (const json& row : threads["rows"]) {
    thread_allocations += row["allocations"].get<uint64_t>();
    thread_frees += row["frees"].get<uint64_t>();
    thread_freed += row["bytes_freed"].get<uint64_t>();
  }
  EXPECT_EQ(thread_allocations, allocations);
  EXPECT_EQ(thread_allocations, frames["allocations"]);
  EXPECT_EQ(thread_frees, frees);  // the demo frees no unknown block
  EXPECT_EQ(thread_freed, frames["bytes_freed"]);

  // Leaks: what the load left is the nav mesh; gameplay left nothing.
  const std::string load = std::to_string(LoadFrame());
  json load_leaks = Dump("leaks", {"--range", load + ":" + load});
  EXPECT_EQ(load_leaks["range"]["from"], LoadFrame());
  EXPECT_EQ(e2e::SumSites(e2e::SitesWithFunctionInStack(load_leaks["rows"], kLeakingFunction)).bytes, kLeakedBytes);
  json play_leaks = Dump("leaks", {"--range", range});
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(play_leaks["rows"], kLeakingFunction).empty());
  EXPECT_EQ(Dump("leaks", {})["range"], nullptr);  // nothing picked: every leak
}

// The Threads tab: frees and the bytes they released, and rates per frame
// over the steady frames it names (start-up would inflate them).
TEST_F(ViewerViews, ThreadRatesAreOfTheSteadyFrames) {
  json threads = Dump("threads", {});
  const json& judged = threads["judged_frames"];
  EXPECT_EQ(judged["judged"], "steady");
  json timeline = Dump("timeline", {});
  auto in_judged = [&](uint64_t frame) {
    for (const json& r : judged["ranges"])
      if (frame >= r["from"].get<uint64_t>() && frame <= r["to"].get<uint64_t>()) return true;
    return false;
  };
  uint64_t steady_allocations = 0, all_allocations = 0, frames = 0;
  for (const json& f : timeline["frames"]) {
    all_allocations += f["allocations"].get<uint64_t>();
    if (!in_judged(f["frame"])) continue;
    steady_allocations += f["allocations"].get<uint64_t>();
    ++frames;
  }
  EXPECT_EQ(judged["frame_count"], frames);
  double per_frame = 0;
  uint64_t allocations = 0;
  for (const json& row : threads["rows"]) {
    per_frame += row["allocations_per_frame"].get<double>();
    allocations += row["allocations"].get<uint64_t>();
    if (row["frees"] == 0) {
      EXPECT_EQ(row["bytes_freed"], 0) << row;
    }
  }
  // The game's thread frees what it allocates (labels, HUD strings, ...).
  EXPECT_GT(threads["rows"][0]["frees"].get<uint64_t>(), 0u);
  EXPECT_GT(threads["rows"][0]["bytes_freed"].get<uint64_t>(), 0u);
  EXPECT_EQ(allocations, all_allocations);  // counts: every frame
  EXPECT_NEAR(per_frame * frames, static_cast<double>(steady_allocations), 1e-6 * steady_allocations);
}

// The fragmentation tab opens on the last frame of steady play, not on the
// teardown after the last present.
TEST_F(ViewerViews, FragmentationOpensOnTheLastSteadyFrame) {
  json timeline = Dump("timeline", {});
  uint64_t last_steady = 0;
  for (const json& p : timeline["phases"])
    if (p["phase"] == "steady") last_steady = p["to"];
  json data = Dump("fragmentation", {});
  EXPECT_EQ(data["frame"], last_steady);
  EXPECT_NE(data["frame"], timeline["frames"].back()["frame"]);
  // What the headline says: live over span; the split is of the free bytes.
  const json& heap = data["heap"];
  EXPECT_DOUBLE_EQ(heap["dense"].get<double>(),
                   heap["live_bytes"].get<double>() / heap["span"].get<double>());
}

// The time line and the allocation strip are scaled to steady play.
TEST_F(ViewerViews, TimelineScalesAreOfTheSteadyFrames) {
  json timeline = Dump("timeline", {});
  std::vector<std::pair<uint64_t, uint64_t>> steady;
  for (const json& p : timeline["phases"])
    if (p["phase"] == "steady") steady.emplace_back(p["from"], p["to"]);
  ASSERT_FALSE(steady.empty());
  auto is_steady = [&](uint64_t frame) {
    for (auto [a, b] : steady)
      if (frame >= a && frame <= b) return true;
    return false;
  };
  uint64_t time = 0, churn = 0;
  for (size_t i = 0; i < timeline["frames"].size(); ++i) {
    const json& f = timeline["frames"][i];
    if (!is_steady(f["frame"])) continue;
    time = std::max(time, f["alloc_time_ns"].get<uint64_t>());
    uint64_t up = 0, down = 0;
    for (const auto& [name, c] : timeline["live"]["frames"][i]["classes"].items()) {
      up += c["allocations"].get<uint64_t>();
      down += c["frees"].get<uint64_t>();
    }
    churn = std::max({churn, up, down});
  }
  EXPECT_EQ(timeline["time_scale_ns"], std::max<uint64_t>(time, 1));
  EXPECT_EQ(timeline["live"]["churn_scale"]["blocks"], churn);
  // Start-up allocates far more than any frame of play: it is off the strip.
  EXPECT_GT(timeline["frames"][0]["allocations"].get<uint64_t>(), churn);
}

TEST_F(ViewerViews, NoMismatchesInTheDemo) {
  json data = Dump("mismatches", {});
  EXPECT_EQ(data["total"], 0);
  EXPECT_TRUE(data["rows"].empty());
  EXPECT_GT(data["frees"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace memframe::demo
