// End to end for the analysis reports: record memframe_demo_game once,
// then check `histogram`, `diff`, `lifetimes`, `mismatches`, `fragmentation`
// and `export` against the game's ground truth (demo_truth.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "demo_live_series.h"
#include "demo_truth.h"
#include "e2e_helpers.h"

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_DEMO_GAME_PATH
#error "MEMFRAME_DEMO_GAME_PATH must name the demo game executable"
#endif

namespace memframe::demo {
namespace {

using nlohmann::json;

// Longer than a damage label lives, so the label pool reaches its steady
// peak of kHitsPerFrame * kLabelLifetimeFrames labels.
constexpr int kGameplayFrames = 120;
static_assert(kGameplayFrames > kLabelLifetimeFrames);

constexpr int kRecordTimeoutSeconds = 180;
constexpr int kReportTimeoutSeconds = 120;

class DemoGameReports : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-demo-reports");
    capture_path_ = (scratch_->path() / "demo.mfc").string();
    record_command_ = {MEMFRAME_CLI_PATH, "run", "-o", capture_path_, "--",
                       MEMFRAME_DEMO_GAME_PATH, "--frames", std::to_string(kGameplayFrames), "--quiet"};
    record_result_ = e2e::RunCommand(record_command_, kRecordTimeoutSeconds);
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override {
    ASSERT_EQ(record_result_.exit_code, 0) << "recording failed: " << e2e::ShellCommandLine(record_command_);
  }

  static json Report(const std::vector<std::string>& arguments) {
    std::vector<std::string> command = {MEMFRAME_CLI_PATH, "report", capture_path_};
    command.insert(command.end(), arguments.begin(), arguments.end());
    command.push_back("--json");
    const e2e::CommandResult result = e2e::RunCommand(command, kReportTimeoutSeconds);
    if (result.exit_code != 0) {
      ADD_FAILURE() << e2e::ShellCommandLine(command) << " exited with " << result.exit_code;
      return json::object();
    }
    json parsed = e2e::ParseJsonOrDiscard(result.standard_output);
    if (parsed.is_discarded() || !parsed.is_object()) {
      ADD_FAILURE() << e2e::ShellCommandLine(command) << " did not print one JSON object";
      return json::object();
    }
    return e2e::WithStacks(std::move(parsed));
  }

  static std::string File(const std::string& name) { return (scratch_->path() / name).string(); }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_path_;
  static inline std::vector<std::string> record_command_;
  static inline e2e::CommandResult record_result_;
};

bool FunctionContains(const json& row, std::string_view function) {
  return row.value("function", "").find(function) != std::string::npos;
}

// Mesa's and X11's allocations inside glClear and the swap are the driver's
// and the system's, named after the game frame that led there; the only
// game sites in most frames are the game's own (demo_truth.h).
TEST_F(DemoGameReports, GraphicsAllocationsAreTheDriversNotTheGames) {
  const json hidden = Report({"hidden"});
  bool driver_via_game = false;
  for (const json& site : e2e::EveryScopeRows(hidden)) {
    const std::string name = site.value("name", "");
    if (site.value("module_class", "") == "game") {
      EXPECT_TRUE(FunctionContains(site, kSpawnDamageLabelFunction) || FunctionContains(site, kBuildHudTextFunction))
          << name;
    } else if (name.find(" (via ") == std::string::npos) {
      // Named after its own frame only when no game frame led there.
      for (const json& frame : site.value("stack", json::array()))
        EXPECT_NE(frame.value("module_class", ""), "game") << name;
    }
    driver_via_game = driver_via_game || (site.value("module_class", "") == "driver" &&
                                          name.rfind("swrast_dri.so (via ", 0) == 0);
  }
  EXPECT_TRUE(driver_via_game) << hidden.dump(1);
  for (const json& c : Report({}).value("module_classes", json::array())) {
    if (c.value("module_class", "") == "driver") {
      EXPECT_GT(c.value("allocations", 0), 0);
    }
  }
}

// The frames report's per-class series: the game's own allocations, frees
// and live bytes frame by frame, exactly; the classes add up to the frame.
TEST_F(DemoGameReports, FramesCarryTheGameClassSeries) {
  const json all = Report({"frames"});
  ASSERT_TRUE(all.contains("frames"));
  ExpectDemoGameSeries(all["frames"], kGameplayFrames);
  EXPECT_NE(std::find(all["module_classes"].begin(), all["module_classes"].end(), "driver"), all["module_classes"].end());
  for (const json& f : all["frames"]) {
    uint64_t allocations = 0, live = 0, mapped = 0;
    for (const auto& [name, c] : f["classes"].items()) {
      allocations += c["allocations"].get<uint64_t>();
      live += c["live_bytes"].get<uint64_t>();
      mapped += c["mapped_bytes"].get<uint64_t>();
    }
    EXPECT_EQ(allocations, f["allocations"].get<uint64_t>()) << f["frame"];
    EXPECT_EQ(live, f["live_bytes"].get<uint64_t>()) << f["frame"];
    EXPECT_EQ(mapped, f["mapped_bytes"].get<uint64_t>()) << f["frame"];
  }
  // --only game: the frame's figures are the game's.
  const json game = Report({"frames", "--only", "game", "--from", std::to_string(FirstGameplayFrame()), "--to",
                            std::to_string(FirstGameplayFrame())});
  ASSERT_EQ(game["frames"].size(), 1u);
  EXPECT_EQ(game["module_classes"], json({"game"}));
  EXPECT_EQ(game["frames"][0]["allocations"], GameAllocations(0));
  EXPECT_EQ(game["frames"][0]["bytes_allocated"], GameBytesAllocated(0));
}

TEST_F(DemoGameReports, DiffAcrossTheLoadFrameIsExactlyTheLevel) {
  const json diff = Report({"diff", std::to_string(LoadFrame() - 1), std::to_string(LoadFrame())});
  const std::vector<json> level = e2e::SitesWithFunctionInStack(diff.value("sites", json::array()), kLoadLevelFunction);
  ASSERT_EQ(level.size(), static_cast<size_t>(kLevelBlocks)) << "each level array has its own stack";
  std::int64_t blocks = 0, bytes = 0;
  for (const json& site : level) {
    EXPECT_EQ(site.value("change", ""), "new");
    blocks += site.value("delta_blocks", 0);
    bytes += site.value("delta_bytes", 0);
  }
  EXPECT_EQ(blocks, kLevelBlocks);
  EXPECT_EQ(bytes, static_cast<std::int64_t>(kLevelBytes));
}

// The phases: start-up in frame 0 (everything before the first swap), the
// title screen, the load (LoadLevel's frame and the first gameplay frame,
// where the driver builds what the level needs), then gameplay to the
// unload. The default diff is across that load and holds exactly the level.
TEST_F(DemoGameReports, PhasesFindTheLoadAndTheDefaultDiffShowsIt) {
  const json phases = Report({"phases"});
  const json rows = phases.value("phases", json::array());
  ASSERT_EQ(rows.size(), 5u) << phases.dump(1);
  const std::vector<std::tuple<std::string, int, int>> expected = {
      {"start-up", 0, 0},
      {"steady", 1, LoadFrame() - 1},
      {"load", LoadFrame(), FirstGameplayFrame()},
      {"steady", FirstGameplayFrame() + 1, UnloadFrame(kGameplayFrames)},
      {"teardown", TotalFrames(kGameplayFrames), TotalFrames(kGameplayFrames)}};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(rows[i].value("phase", ""), std::get<0>(expected[i])) << i;
    EXPECT_EQ(rows[i]["frames"].value("from", -1), std::get<1>(expected[i])) << i;
    EXPECT_EQ(rows[i]["frames"].value("to", -1), std::get<2>(expected[i])) << i;
  }
  EXPECT_EQ(phases["largest_load"].value("from", -1), LoadFrame());

  const json diff = Report({"diff"});
  EXPECT_EQ(diff["a"].value("frame", -1), LoadFrame() - 1) << diff["a"].dump();
  EXPECT_EQ(diff["b"].value("frame", -1), FirstGameplayFrame()) << diff["b"].dump();
  std::int64_t bytes = 0;
  for (const json& site : e2e::SitesWithFunctionInStack(diff.value("sites", json::array()), kLoadLevelFunction))
    bytes += site.value("delta_bytes", 0);
  EXPECT_EQ(bytes, static_cast<std::int64_t>(kLevelBytes));
}

TEST_F(DemoGameReports, DiffAcrossTheUnloadLeavesOnlyTheNavMesh) {
  const json diff = Report({"diff", std::to_string(LoadFrame()), std::to_string(UnloadFrame(kGameplayFrames))});
  std::int64_t level_bytes = 0;
  for (const json& site : e2e::SitesWithFunctionInStack(diff.value("sites", json::array()), kLoadLevelFunction)) {
    EXPECT_EQ(site.value("change", ""), "gone") << site.value("function", "");
    EXPECT_FALSE(e2e::StackContains(site, kLeakingFunction)) << "the nav mesh is never freed";
    level_bytes += site.value("delta_bytes", 0);
  }
  EXPECT_EQ(level_bytes, -static_cast<std::int64_t>(kLevelBytes - kNavMeshBytes));
  // No label or projectile was live at the load, none outlives the unload:
  // their stacks do not change.
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(diff.value("sites", json::array()), kSpawnDamageLabelFunction).empty());
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(diff.value("sites", json::array()), kFireProjectileFunction).empty());
}

TEST_F(DemoGameReports, HistogramOfAGameplayFrameHasTheLabelsIn32To63) {
  const int frame = FirstGameplayFrame() + 10;
  const json histogram = Report({"histogram", "--frame", std::to_string(frame)});
  json bin;
  for (const json& b : histogram.value("bins", json::array()))
    if (b.value("size_min", 0) <= static_cast<int>(kDamageLabelBytes) &&
        b.value("size_max", 0) >= static_cast<int>(kDamageLabelBytes))
      bin = b;
  ASSERT_TRUE(bin.is_object()) << "no bin holds " << kDamageLabelBytes << " bytes";
  EXPECT_EQ(bin.value("size_min", 0), 32);
  std::map<std::string, std::pair<int, int>> game_sites;  // function -> allocations, bytes
  for (const json& site : bin.value("sites", json::array())) {
    for (std::string_view f : {kSpawnDamageLabelFunction, kBuildHudTextFunction})
      if (FunctionContains(site, f)) game_sites[std::string(f)] = {site.value("allocations", 0), site.value("bytes", 0)};
  }
  EXPECT_EQ(game_sites[std::string(kSpawnDamageLabelFunction)],
            std::make_pair(kHitsPerFrame, kHitsPerFrame * static_cast<int>(kDamageLabelBytes)));
  EXPECT_EQ(game_sites[std::string(kBuildHudTextFunction)], std::make_pair(1, static_cast<int>(kHudTextAllocationBytes)));
}

struct LifetimeSites {
  std::vector<json> labels, hud, level, nav_mesh;
};

LifetimeSites GameLifetimeSites(const json& lifetimes) {
  LifetimeSites s;
  for (const json& site : e2e::EveryScopeRows(lifetimes)) {
    if (FunctionContains(site, kSpawnDamageLabelFunction)) s.labels.push_back(site);
    if (FunctionContains(site, kBuildHudTextFunction)) s.hud.push_back(site);
    if (FunctionContains(site, kLeakingFunction)) s.nav_mesh.push_back(site);
    else if (FunctionContains(site, kLoadLevelFunction)) s.level.push_back(site);
  }
  return s;
}

// By default the blocks of steady play are judged: the first gameplay
// frame's belong to the load (demo_truth.h SteadyGameplayFrames), the
// level's are the load's.
TEST_F(DemoGameReports, LifetimesClassEachGameSite) {
  const json lifetimes = Report({"lifetimes"});
  // Per steady phase: the title screen's and gameplay's.
  ASSERT_EQ(lifetimes["phases"].size(), 2u);
  for (const json& phase : lifetimes["phases"]) EXPECT_EQ(phase["judged_frames"].value("judged", ""), "steady");
  EXPECT_EQ(lifetimes["phases"][1]["frames"].value("from", -1), FirstGameplayFrame() + 1);
  auto [labels, hud, level, nav_mesh] = GameLifetimeSites(lifetimes);
  const int frames = SteadyGameplayFrames(kGameplayFrames);
  // A label lives kLabelLifetimeFrames frames, so it is neither frame- nor
  // level-scoped; labels die in the order they were made, each exactly
  // kLabelLifetimeFrames frames later (those left at the end die in the
  // teardown): a ring of 90 slots.
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].value("class", ""), "ring");
  EXPECT_EQ(labels[0].value("ring_delay_frames", 0), kLabelLifetimeFrames);
  EXPECT_EQ(labels[0].value("allocations", 0), DamageLabelCount(frames));
  EXPECT_EQ(labels[0].value("frees", 0), DamageLabelCount(frames));
  EXPECT_EQ(labels[0].value("freed_same_frame", -1), 0);
  EXPECT_EQ(labels[0].value("lifetime_frames_max", 0), kLabelLifetimeFrames);
  EXPECT_EQ(labels[0].value("peak_live_blocks", 0), kHitsPerFrame * kLabelLifetimeFrames);
  EXPECT_EQ(labels[0].value("calls_saved", 0), 2 * DamageLabelCount(frames));
  // The HUD string dies in the frame that built it.
  ASSERT_EQ(hud.size(), 1u);
  EXPECT_EQ(hud[0].value("class", ""), "frame");
  EXPECT_EQ(hud[0].value("peak_live_blocks", 0), 1);
  EXPECT_EQ(hud[0].value("allocations", 0), frames);
  EXPECT_TRUE(level.empty());
  EXPECT_TRUE(nav_mesh.empty());
}

TEST_F(DemoGameReports, LifetimesOfEveryFrameClassTheLevel) {
  const json lifetimes = Report({"lifetimes", "--all-frames"});
  ASSERT_EQ(lifetimes["phases"].size(), 1u);
  EXPECT_EQ(lifetimes["phases"][0]["judged_frames"].value("judged", ""), "all");
  auto [labels, hud, level, nav_mesh] = GameLifetimeSites(lifetimes);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].value("allocations", 0), DamageLabelCount(kGameplayFrames));
  ASSERT_EQ(hud.size(), 1u);
  EXPECT_EQ(hud[0].value("allocations", 0), kGameplayFrames);
  // The level dies in the unload frame, a free burst; the nav mesh never.
  ASSERT_EQ(level.size(), static_cast<size_t>(kLevelBlocks - kLeakedBlocks));
  for (const json& site : level) EXPECT_EQ(site.value("class", ""), "level") << site.value("function", "");
  ASSERT_EQ(nav_mesh.size(), 1u);
  EXPECT_EQ(nav_mesh[0].value("class", ""), "long-lived");
  const json boundaries = lifetimes.value("boundary_frames", json::array());
  EXPECT_NE(std::find(boundaries.begin(), boundaries.end(), json(UnloadFrame(kGameplayFrames))), boundaries.end());
}

TEST_F(DemoGameReports, TheDemoFreesEverythingTheWayItWasAllocated) {
  const json mismatches = Report({"mismatches"});
  EXPECT_EQ(mismatches.value("total", -1), 0);
  EXPECT_TRUE(mismatches.value("mismatches", json::array()).empty());
  EXPECT_GT(mismatches.value("frees", 0), DamageLabelCount(kGameplayFrames));
}

TEST_F(DemoGameReports, FragmentationWritesTheMapOfTheLoadFrame) {
  const std::string png = File("load.png");
  const json fragmentation = Report({"fragmentation", "--frame", std::to_string(LoadFrame()), "--png", png});
  const json samples = fragmentation.value("samples", json::array());
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].value("frame", -1), LoadFrame());
  EXPECT_GE(samples[0]["heap"].value("live_bytes", std::uint64_t{0}), kLevelBytes);
  std::ifstream file(png, std::ios::binary);
  std::string magic(8, '\0');
  file.read(magic.data(), 8);
  EXPECT_EQ(magic, "\x89PNG\r\n\x1a\n");
}

std::uint64_t FoldedTotal(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::uint64_t total = 0;
  while (std::getline(in, line)) total += std::stoull(line.substr(line.rfind(' ') + 1));
  return total;
}

TEST_F(DemoGameReports, FoldedExportTotalsEqualTheSites) {
  const std::string folded = File("demo.folded");
  const e2e::CommandResult result =
      e2e::RunCommand({MEMFRAME_CLI_PATH, "export", capture_path_, "--format", "folded", "-o", folded},
                      kReportTimeoutSeconds);
  ASSERT_EQ(result.exit_code, 0);
  const e2e::SiteTotals sites = e2e::SumSites(e2e::OneScopeRows(Report({"sites", "--all-frames"})));
  EXPECT_EQ(FoldedTotal(folded), sites.bytes);

  const std::string pprof = File("demo.pb.gz");
  ASSERT_EQ(e2e::RunCommand({MEMFRAME_CLI_PATH, "export", capture_path_, "--format", "pprof", "-o", pprof},
                            kReportTimeoutSeconds)
                .exit_code,
            0);
  std::ifstream gz(pprof, std::ios::binary);
  EXPECT_EQ(gz.get(), 0x1f);  // gzip magic
  EXPECT_EQ(gz.get(), 0x8b);
}

// Every row that names a stack, in every report, has at least the short site
// form (REPORTS.md "Site object (JSON)"), and its stack is written in the
// report's "stacks": one shape for a stack reference, whichever report
// wrote it.
void ExpectStackReferencesHaveOneShape(const json& node, const json& stacks, const std::string& where) {
  if (node.is_array()) {
    for (const json& element : node) ExpectStackReferencesHaveOneShape(element, stacks, where);
    return;
  }
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items()) ExpectStackReferencesHaveOneShape(value, stacks, where + "." + key);
  const auto id = node.find("stack_id");
  if (id == node.end()) return;
  for (const char* key : {"stack_id", "name", "module", "module_class", "function", "location", "thread", "threads"})
    EXPECT_TRUE(node.contains(key)) << where << " names a stack without \"" << key << "\": " << node.dump();
  ASSERT_TRUE(id->is_number_unsigned()) << where;
  if (id->get<uint64_t>() != 0) {
    EXPECT_TRUE(stacks.is_object() && stacks.contains(std::to_string(id->get<uint64_t>())))
        << where << ": stack " << *id << " is not in the report's stacks";
  }
}

TEST_F(DemoGameReports, EveryReportsStackReferencesHaveOneShape) {
  for (const char* report : {"summary", "allocators", "diff", "frames", "hidden", "gpu", "histogram", "leaks",
                             "lifetimes", "locality", "mismatches", "phases", "sites", "slow", "threads"}) {
    std::vector<std::string> command = {MEMFRAME_CLI_PATH, "report", capture_path_, report, "--json"};
    const e2e::CommandResult result = e2e::RunCommand(command, kReportTimeoutSeconds);
    ASSERT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(command);
    const json parsed = e2e::ParseJsonOrDiscard(result.standard_output);
    ASSERT_TRUE(parsed.is_object()) << e2e::ShellCommandLine(command);
    ExpectStackReferencesHaveOneShape(parsed, parsed.value("stacks", json()), report);
  }
}

// `slow` lists the calls the frames report times: its slowest call is the
// slowest of any frame, and each call sits in a frame whose slowest call and
// allocator time are the frames report's.
TEST_F(DemoGameReports, SlowCallsAreTheFramesSlowest) {
  const json slow = Report({"slow", "--all-frames"});
  const json frames = Report({"frames"});
  ASSERT_TRUE(slow["calls"].is_array());
  ASSERT_EQ(slow["calls"].size(), 20u);
  std::map<uint64_t, json> by_frame;
  uint64_t slowest = 0;
  for (const json& f : frames["frames"]) {
    by_frame[f["frame"].get<uint64_t>()] = f;
    slowest = std::max(slowest, f["slowest_alloc_ns"].get<uint64_t>());
  }
  EXPECT_EQ(slow["calls"][0]["duration_ns"], slowest);
  uint64_t previous = UINT64_MAX;
  for (const json& call : slow["calls"]) {
    const json& f = by_frame.at(call["frame"].get<uint64_t>());
    EXPECT_LE(call["duration_ns"].get<uint64_t>(), f["slowest_alloc_ns"].get<uint64_t>()) << call;
    EXPECT_EQ(call["frame_alloc_time_ns"], f["alloc_time_ns"]) << call;
    EXPECT_EQ(call["phase"], f["phase"]) << call;
    EXPECT_LE(call["duration_ns"].get<uint64_t>(), previous);
    previous = call["duration_ns"].get<uint64_t>();
    if (call["call"] == "free" || call["call"] == "delete" || call["call"] == "delete[]") {
      EXPECT_EQ(call["size"], 0) << call;
    } else {
      EXPECT_GT(call["size"].get<uint64_t>(), 0u) << call;
      EXPECT_TRUE(call["site"].is_object()) << call;
    }
  }
  // Steady play by default: no call of start-up or a load.
  for (const json& call : Report({"slow"})["calls"]) EXPECT_EQ(call["phase"].get<std::string>().rfind("steady", 0), 0u) << call;
}

#ifdef MEMFRAME_VIEWER_PATH
// A row the viewer draws and the same row in a report have one shape
// (row_json.h): the view's JSON has every key of the report's row, and
// only the keys of what the view draws beyond it.
struct RowPair {
  std::string view;
  std::vector<std::string> view_rows;  // path to the view's row array
  std::vector<std::string> report;     // report name and its arguments
  std::vector<std::string> report_rows;
  std::set<std::string> view_only;     // keys the view adds to the report's row
  std::set<std::string> report_only = {};  // keys of what the report lists beside the row
};

const json& At(const json& j, const std::vector<std::string>& path) {
  const json* node = &j;
  for (const std::string& key : path) node = key == "0" ? &node->at(0) : &node->at(key);
  return *node;
}

std::set<std::string> Keys(const json& row) {
  std::set<std::string> keys;
  for (const auto& [key, value] : row.items()) keys.insert(key);
  return keys;
}

TEST_F(DemoGameReports, EveryViewRowHasItsReportsShape) {
  const std::string steady = "steady 1";
  const std::vector<RowPair> pairs = {
      {"hidden", {"rows"}, {"hidden", "--phase", steady}, {"phases", "0", "sites"}, {}},
      {"lifetimes", {"rows"}, {"lifetimes", "--phase", steady}, {"phases", "0", "sites"}, {"inside", "via"}},
      {"leaks", {"rows"}, {"leaks"}, {"sites"}, {"inside", "stack_ids"}},
      {"threads", {"rows"}, {"threads"}, {"threads"}, {"frees_per_frame", "bytes_per_frame", "shown"}},
      {"diff", {"rows"}, {"diff"}, {"sites"}, {}},
      {"histogram", {"sites"}, {"sites", "--all-frames"}, {"phases", "0", "sites"}, {"inside"}},
      {"histogram", {"histogram", "bins"}, {"histogram"}, {"bins"}, {}, {"site_count", "sites"}},
  };
  for (const RowPair& pair : pairs) {
    SCOPED_TRACE(pair.view + " against report " + pair.report[0]);
    std::vector<std::string> command = {MEMFRAME_VIEWER_PATH, capture_path_, "--dump-view-data", pair.view};
    if (pair.view == "hidden" || pair.view == "lifetimes") {
      command.push_back("--phase");
      command.push_back(steady);
    }
    const e2e::CommandResult result = e2e::RunCommand(command, kReportTimeoutSeconds);
    ASSERT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(command);
    const json view = e2e::ParseJsonOrDiscard(result.standard_output);
    ASSERT_TRUE(view.is_object()) << e2e::ShellCommandLine(command);
    ExpectStackReferencesHaveOneShape(view, view.value("stacks", json()), "view " + pair.view);

    std::vector<std::string> arguments = pair.report;
    const json report = Report(arguments);
    const json& view_rows = At(view, pair.view_rows);
    const json& report_rows = At(report, pair.report_rows);
    ASSERT_FALSE(view_rows.empty());
    ASSERT_FALSE(report_rows.empty());
    std::set<std::string> expected = Keys(report_rows.front());
    expected.erase("stack");  // e2e::WithStacks inlined it for the tests
    expected.insert(pair.view_only.begin(), pair.view_only.end());
    for (const std::string& key : pair.report_only) expected.erase(key);
    for (const json& row : view_rows) {
      std::set<std::string> keys = Keys(row);
      // stack_ids is there for a group of stacks only, in both.
      if (!row.contains("stack_ids") && !pair.view_only.count("stack_ids")) expected.erase("stack_ids");
      if (row.contains("stack_ids")) keys.erase("stack_ids"), expected.erase("stack_ids");
      EXPECT_EQ(keys, expected) << row.dump().substr(0, 400);
    }
  }
}
#endif

}  // namespace
}  // namespace memframe::demo
