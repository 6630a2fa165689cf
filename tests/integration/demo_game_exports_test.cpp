// End to end for the trace exports: record memframe_demo_game, export it as
// Trace Event JSON and as a Perfetto trace, and check both against the
// frames report and the game's ground truth (demo_truth.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "demo_truth.h"
#include "e2e_helpers.h"
#include "protos/perfetto/trace/trace.pb.h"

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_DEMO_GAME_PATH
#error "MEMFRAME_DEMO_GAME_PATH must name the demo game executable"
#endif

namespace memframe::demo {
namespace {

using nlohmann::json;
namespace pf = perfetto::protos;

constexpr int kGameplayFrames = 120;
constexpr int kRecordTimeoutSeconds = 180;
constexpr int kCommandTimeoutSeconds = 120;

// The phases of the run (the phases report's, demo_game_reports_test.cpp).
const std::vector<std::tuple<std::string, int, int>> kPhases = {
    {"start-up", 0, 0},
    {"steady", 1, LoadFrame() - 1},
    {"load", LoadFrame(), FirstGameplayFrame()},
    {"steady", FirstGameplayFrame() + 1, UnloadFrame(kGameplayFrames)},
    {"teardown", TotalFrames(kGameplayFrames), TotalFrames(kGameplayFrames)}};

class DemoGameExports : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-demo-exports");
    capture_path_ = File("demo.mfc");
    record_command_ = {MEMFRAME_CLI_PATH, "run", "-o", capture_path_, "--",
                       MEMFRAME_DEMO_GAME_PATH, "--frames", std::to_string(kGameplayFrames), "--quiet"};
    record_result_ = e2e::RunCommand(record_command_, kRecordTimeoutSeconds);
    // The same run with the particle trail: one known allocation per gameplay frame more.
    trail_path_ = File("trail.mfc");
    trail_command_ = {MEMFRAME_CLI_PATH, "run", "-o", trail_path_, "--", MEMFRAME_DEMO_GAME_PATH, "--frames",
                      std::to_string(kGameplayFrames), "--quiet", std::string(kParticleTrailOption)};
    trail_result_ = e2e::RunCommand(trail_command_, kRecordTimeoutSeconds);
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override {
    ASSERT_EQ(record_result_.exit_code, 0) << "recording failed: " << e2e::ShellCommandLine(record_command_);
  }

  static std::string File(const std::string& name) { return (scratch_->path() / name).string(); }

  static std::string Export(const std::string& format, const std::string& name) {
    const std::string path = File(name);
    const std::vector<std::string> command = {MEMFRAME_CLI_PATH, "export", capture_path_, "--format", format,
                                              "-o", path, "--force"};
    EXPECT_EQ(e2e::RunCommand(command, kCommandTimeoutSeconds).exit_code, 0) << e2e::ShellCommandLine(command);
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  // Runs memframe with `arguments`; the exit status and what it printed.
  static e2e::CommandResult Memframe(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), MEMFRAME_CLI_PATH);
    return e2e::RunCommand(arguments, kCommandTimeoutSeconds);
  }

  static std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = File(name);
    std::ofstream(path) << text;
    return path;
  }

  // The frames report's rows, by frame.
  static std::map<uint64_t, json> FrameRows() {
    const std::vector<std::string> command = {MEMFRAME_CLI_PATH, "report", capture_path_, "frames", "--json"};
    const json report = e2e::ParseJsonOrDiscard(e2e::RunCommand(command, kCommandTimeoutSeconds).standard_output);
    std::map<uint64_t, json> rows;
    if (report.is_discarded()) return rows;
    for (const json& row : report.value("frames", json::array())) rows[row.value("frame", uint64_t{0})] = row;
    return rows;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_path_;
  static inline std::vector<std::string> record_command_;
  static inline e2e::CommandResult record_result_;
  static inline std::string trail_path_;
  static inline std::vector<std::string> trail_command_;
  static inline e2e::CommandResult trail_result_;
};

TEST_F(DemoGameExports, ChromeJsonHasTheFramesPhasesAndCountersOfTheRun) {
  const json trace = e2e::ParseJsonOrDiscard(Export("chrome-json", "demo.json"));
  ASSERT_FALSE(trace.is_discarded());
  ASSERT_TRUE(trace.contains("traceEvents") && trace["traceEvents"].is_array());
  const std::map<uint64_t, json> rows = FrameRows();
  ASSERT_EQ(rows.size(), static_cast<size_t>(TotalFrames(kGameplayFrames) + 1)) << "every frame and the teardown";

  int64_t pid = -1;
  std::map<int64_t, std::string> thread_names;
  std::vector<json> frames, phases;
  std::map<std::string, std::vector<json>> counters;
  for (const json& e : trace["traceEvents"]) {
    // The schema every Trace Event Format reader needs.
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e.dump();
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e.dump();
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e.dump();
    const std::string ph = e["ph"];
    if (ph != "M") {
      ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e.dump();
    }
    if (ph == "M" && e["name"] == "process_name") {
      pid = e["pid"];
      EXPECT_NE(e["args"].value("name", "").find("memframe_demo_game"), std::string::npos) << e.dump();
    } else if (ph == "M" && e["name"] == "thread_name") {
      thread_names[e["tid"]] = e["args"].value("name", "");
    } else if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number() && e["dur"] >= 0) << e.dump();
      (e.value("cat", "") == "frame" ? frames : phases).push_back(e);
    } else if (ph == "C") {
      counters[e["name"]].push_back(e);
    }
  }
  ASSERT_GT(pid, 0);
  // The game presents from its main thread, whose tid is the pid.
  EXPECT_EQ(thread_names.count(pid), 1u);

  ASSERT_EQ(frames.size(), rows.size());
  for (const json& f : frames) {
    EXPECT_EQ(f.value("tid", -1), pid) << f.dump();
    const uint64_t number = f["args"].value("frame", uint64_t{0});
    EXPECT_EQ(f["name"], "frame " + std::to_string(number));
    const json& row = rows.at(number);
    for (const char* key : {"allocations", "frees", "bytes_allocated", "bytes_freed", "live_bytes", "alloc_time_ns"})
      EXPECT_EQ(f["args"][key], row[key]) << key << " of frame " << number;
  }
  // The load frame's slice holds the whole level.
  EXPECT_GE(frames[LoadFrame()]["args"].value("bytes_allocated", uint64_t{0}), kLevelBytes);
  EXPECT_GE(frames[LoadFrame()]["args"].value("allocations", 0), kLevelBlocks);

  ASSERT_EQ(phases.size(), kPhases.size());
  for (size_t i = 0; i < kPhases.size(); ++i) {
    EXPECT_EQ(phases[i]["name"], std::get<0>(kPhases[i])) << i;
    EXPECT_EQ(phases[i]["args"].value("first_frame", -1), std::get<1>(kPhases[i])) << i;
    EXPECT_EQ(phases[i]["args"].value("last_frame", -1), std::get<2>(kPhases[i])) << i;
    // A phase encloses its frames exactly.
    const json& first = frames[std::get<1>(kPhases[i])];
    const json& last = frames[std::get<2>(kPhases[i])];
    EXPECT_DOUBLE_EQ(phases[i]["ts"].get<double>(), first["ts"].get<double>()) << i;
    EXPECT_NEAR(phases[i]["ts"].get<double>() + phases[i]["dur"].get<double>(),
                last["ts"].get<double>() + last["dur"].get<double>(), 0.002)
        << i;
  }

  for (const char* name : {"live heap bytes", "mapped bytes", "allocations", "bytes allocated", "allocator time ns"})
    ASSERT_EQ(counters[name].size(), frames.size()) << name;
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(counters["live heap bytes"][i]["args"]["value"], frames[i]["args"]["live_bytes"]);
    EXPECT_EQ(counters["allocations"][i]["args"]["value"], frames[i]["args"]["allocations"]);
    EXPECT_EQ(counters["mapped bytes"][i]["args"]["value"], frames[i]["args"]["mapped_bytes"]);
    EXPECT_DOUBLE_EQ(counters["allocations"][i]["ts"].get<double>(), frames[i]["ts"].get<double>());
  }
  // Per module class: one series per class, adding up to the whole game's.
  const std::pair<const char*, const char*> by_class[] = {{"live heap bytes by class", "live_bytes"},
                                                          {"allocations by class", "allocations"},
                                                          {"bytes allocated by class", "bytes_allocated"},
                                                          {"mapped bytes by class", "mapped_bytes"}};
  for (const auto& [name, key] : by_class) {
    ASSERT_EQ(counters[name].size(), frames.size()) << name;
    for (size_t i = 0; i < frames.size(); ++i) {
      uint64_t sum = 0;
      for (const auto& [module_class, value] : counters[name][i]["args"].items()) sum += value.get<uint64_t>();
      EXPECT_EQ(sum, frames[i]["args"][key].get<uint64_t>()) << name << " of frame " << i;
    }
    EXPECT_TRUE(counters[name][0]["args"].contains("game")) << counters[name][0].dump();
  }
}

// Function names of a ProfilePacket's call stack, outermost first.
std::vector<std::string> StackFunctions(const pf::ProfilePacket& p, uint64_t callstack) {
  std::map<uint64_t, std::string> strings;
  for (const pf::InternedString& s : p.strings()) strings[s.iid()] = s.str();
  std::map<uint64_t, uint64_t> frame_names;
  for (const pf::Frame& f : p.frames()) frame_names[f.iid()] = f.function_name_id();
  for (const pf::Callstack& c : p.callstacks()) {
    if (c.iid() != callstack) continue;
    std::vector<std::string> names;
    for (uint64_t id : c.frame_ids()) names.push_back(strings[frame_names[id]]);
    return names;
  }
  return {};
}

bool Holds(const std::vector<std::string>& functions, std::string_view name) {
  for (const std::string& f : functions)
    if (f.find(name) != std::string::npos) return true;
  return false;
}

TEST_F(DemoGameExports, PerfettoTraceDecodesWithPerfettosProtosAndHoldsTheTruth) {
  pf::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(Export("perfetto", "demo.pftrace")));
  const std::map<uint64_t, json> rows = FrameRows();

  int64_t pid = -1;
  std::map<uint64_t, std::string> counter_tracks;  // uuid -> name
  uint64_t main_thread_track = 0;
  for (const pf::TracePacket& p : trace.packet()) {
    EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
    if (!p.has_track_descriptor()) continue;
    const pf::TrackDescriptor& d = p.track_descriptor();
    if (d.has_process()) pid = d.process().pid();
    if (d.has_thread() && d.thread().tid() == d.thread().pid()) main_thread_track = d.uuid();
    if (d.has_counter()) counter_tracks[d.uuid()] = d.name();
  }
  ASSERT_GT(pid, 0);
  ASSERT_NE(main_thread_track, 0u);
  // Five for the whole game, four per module class present.
  size_t whole_game_tracks = 0;
  for (const auto& [uuid, name] : counter_tracks) whole_game_tracks += name.find(" (") == std::string::npos;
  ASSERT_EQ(whole_game_tracks, 5u);
  EXPECT_EQ((counter_tracks.size() - 5) % 4, 0u);
  EXPECT_GE(counter_tracks.size(), 9u);

  // Slices: phases enclosing frames on the main thread, balanced.
  std::vector<std::string> open;
  std::vector<std::string> phase_names;
  std::map<uint64_t, uint64_t> frame_allocations;  // from the annotations
  std::map<std::string, std::vector<int64_t>> counter_values;
  std::vector<const pf::ProfilePacket*> profiles;
  for (const pf::TracePacket& p : trace.packet()) {
    if (p.has_profile_packet()) profiles.push_back(&p.profile_packet());
    if (!p.has_track_event()) continue;
    const pf::TrackEvent& e = p.track_event();
    if (e.type() == pf::TrackEvent::TYPE_COUNTER) {
      counter_values[counter_tracks[e.track_uuid()]].push_back(e.counter_value());
      continue;
    }
    if (e.type() == pf::TrackEvent::TYPE_SLICE_BEGIN) {
      EXPECT_EQ(e.track_uuid(), main_thread_track) << e.name();
      open.push_back(e.name());
      if (e.categories(0) == "phase") {
        EXPECT_EQ(open.size(), 1u) << "a phase is outermost";
        phase_names.push_back(e.name());
      } else {
        EXPECT_EQ(open.size(), 2u) << e.name() << " lies inside its phase";
        uint64_t frame = 0, allocations = 0;
        for (const pf::DebugAnnotation& a : e.debug_annotations()) {
          if (a.name() == "frame") frame = a.uint_value();
          if (a.name() == "allocations") allocations = a.uint_value();
        }
        frame_allocations[frame] = allocations;
      }
    } else if (e.type() == pf::TrackEvent::TYPE_SLICE_END) {
      ASSERT_FALSE(open.empty());
      open.pop_back();
    }
  }
  EXPECT_TRUE(open.empty());
  ASSERT_EQ(phase_names.size(), kPhases.size());
  for (size_t i = 0; i < kPhases.size(); ++i) EXPECT_EQ(phase_names[i], std::get<0>(kPhases[i]));
  ASSERT_EQ(frame_allocations.size(), rows.size());
  for (const auto& [frame, row] : rows) EXPECT_EQ(frame_allocations[frame], row.value("allocations", uint64_t{0}));
  ASSERT_EQ(counter_values["live heap bytes"].size(), rows.size());
  size_t i = 0;
  for (const auto& [frame, row] : rows)
    EXPECT_EQ(counter_values["live heap bytes"][i++], row.value("live_bytes", int64_t{0})) << frame;
  // The classes' live heap tracks add up to the whole game's, frame by frame.
  std::vector<int64_t> class_sum(rows.size());
  for (const auto& [name, values] : counter_values) {
    if (name.rfind("live heap bytes (", 0) != 0) continue;
    ASSERT_EQ(values.size(), rows.size()) << name;
    for (size_t row = 0; row < values.size(); ++row) class_sum[row] += values[row];
  }
  EXPECT_EQ(class_sum, counter_values["live heap bytes"]);
  EXPECT_EQ(counter_values.count("live heap bytes (game)"), 1u);

  // No marker in the demo: one heap profile, at the end.
  ASSERT_EQ(profiles.size(), 1u);
  const pf::ProfilePacket& profile = *profiles[0];
  ASSERT_EQ(profile.process_dumps_size(), 1);
  EXPECT_EQ(static_cast<int64_t>(profile.process_dumps(0).pid()), pid);
  struct Totals {
    uint64_t allocs = 0, frees = 0, allocated = 0, freed = 0;
  };
  std::map<std::string, Totals> by_function;
  for (const auto& s : profile.process_dumps(0).samples()) {
    const std::vector<std::string> functions = StackFunctions(profile, s.callstack_id());
    for (std::string_view name : {kSpawnDamageLabelFunction, kBuildHudTextFunction, kLeakingFunction, kLoadLevelFunction}) {
      if (!Holds(functions, name)) continue;
      Totals& t = by_function[std::string(name)];
      t.allocs += s.alloc_count();
      t.frees += s.free_count();
      t.allocated += s.self_allocated();
      t.freed += s.self_freed();
    }
  }
  const Totals labels = by_function[std::string(kSpawnDamageLabelFunction)];
  EXPECT_EQ(labels.allocs, static_cast<uint64_t>(DamageLabelCount(kGameplayFrames)));
  EXPECT_EQ(labels.frees, labels.allocs);
  EXPECT_EQ(labels.allocated, DamageLabelCount(kGameplayFrames) * kDamageLabelBytes);
  EXPECT_EQ(labels.freed, labels.allocated);
  const Totals hud = by_function[std::string(kBuildHudTextFunction)];
  EXPECT_EQ(hud.allocs, static_cast<uint64_t>(kGameplayFrames));
  EXPECT_EQ(hud.allocated, kGameplayFrames * kHudTextAllocationBytes);
  const Totals nav_mesh = by_function[std::string(kLeakingFunction)];
  EXPECT_EQ(nav_mesh.allocs, 1u);
  EXPECT_EQ(nav_mesh.allocated, kNavMeshBytes);
  EXPECT_EQ(nav_mesh.frees, 0u);
  const Totals level = by_function[std::string(kLoadLevelFunction)];  // the nav mesh's stack holds LoadLevel too
  EXPECT_EQ(level.allocs, static_cast<uint64_t>(kLevelBlocks));
  EXPECT_EQ(level.allocated, kLevelBytes);
  EXPECT_EQ(level.freed, kLevelBytes - kLeakedBytes);
}

// A gameplay frame of the demo allocates kHitsPerFrame labels and one HUD
// string, and every kProjectileInterval-th a projectile: the worst frame of
// the game's own code in gameplay (steady 2) is the first projectile frame
// after the load. Its mean frame counts every frame of steady 2, the
// gameplay frames after the load's and the unload frame (which allocates
// nothing of the game's).
constexpr int kWorstGameFrame = FirstGameplayFrame() + kProjectileInterval;
constexpr int kWorstGameAllocations = kHitsPerFrame + 2;
constexpr std::size_t kWorstGameBytes = kHitsPerFrame * kDamageLabelBytes + kHudTextAllocationBytes + kProjectileBytes;
constexpr int kGameplayPhaseFrames = UnloadFrame(kGameplayFrames) - FirstGameplayFrame();
constexpr int GameplayPhaseAllocations() {
  int n = 0;
  for (int g = 1; g < kGameplayFrames; ++g) n += GameAllocations(g);
  return n;
}
constexpr std::size_t GameplayPhaseBytes() {
  std::size_t n = 0;
  for (int g = 1; g < kGameplayFrames; ++g) n += GameBytesAllocated(g);
  return n;
}
// 2 labels and a HUD string a frame, a projectile every 5th: 3.2 a frame
// (rounded up to a tenth), over the 3 of the typical frame.
static_assert(GameplayPhaseAllocations() * 10 > 3 * 10 * kGameplayPhaseFrames);

const std::string kGameplayRange =
    std::to_string(FirstGameplayFrame() + 1) + ".." + std::to_string(UnloadFrame(kGameplayFrames));
const std::string kTitleRange = "1.." + std::to_string(LoadFrame() - 1);

TEST_F(DemoGameExports, CheckPassesTheBudgetsTheDemoMeets) {
  const std::string budget = WriteFile("meet.json", R"({
    "steady_frame": {"module_classes": {"game": {"allocations": 4}}},
    "steady_worst_frame": {
      "module_classes": {"game": {"allocations": )" + std::to_string(kWorstGameAllocations) +
                                                        R"(, "bytes": )" + std::to_string(kWorstGameBytes) + R"(}},
      "sites": [{"pattern": "*SpawnDamageLabel*", "allocations": )" +
                                                        std::to_string(kHitsPerFrame) + R"(},
                {"pattern": "hud.cpp:*", "bytes": )" + std::to_string(kHudTextAllocationBytes) +
                                                        R"(}]
    },
    "loads": 1, "unloads": 0,
    "leaks": {"blocks": 1, "bytes": )" + std::to_string(kLeakedBytes) +
                                                        R"(},
    "mismatches": 0
  })");
  const std::string junit = File("meet.xml");
  const e2e::CommandResult r = Memframe({"check", capture_path_, "--budget", budget, "--junit", junit});
  EXPECT_EQ(r.exit_code, 0) << r.standard_output;
  const std::string frame = std::to_string(kWorstGameFrame);
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 2: game allocations a frame"),
            (std::vector<std::string>{"pass", "4", e2e::CheckMean(GameplayPhaseAllocations(), kGameplayPhaseFrames),
                                      kGameplayRange}))
      << r.standard_output;
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: game allocations a frame"),
            (std::vector<std::string>{"pass", "4", "0.0", kTitleRange}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 2: worst frame game allocations"),
            (std::vector<std::string>{"pass", std::to_string(kWorstGameAllocations),
                                      std::to_string(kWorstGameAllocations), frame}))
      << r.standard_output;
  EXPECT_EQ(
      e2e::CheckRow(r.standard_output, "steady 2: worst frame game bytes"),
      (std::vector<std::string>{"pass", std::to_string(kWorstGameBytes), std::to_string(kWorstGameBytes), frame}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 2: worst frame site *SpawnDamageLabel* allocations"),
            (std::vector<std::string>{"pass", "2", "2", std::to_string(FirstGameplayFrame() + 1)}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: worst frame site *SpawnDamageLabel* allocations"),
            (std::vector<std::string>{"pass", "2", "0", "-"}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "loads"), (std::vector<std::string>{"pass", "1", "1", "-"}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "leaked bytes (game)"),
            (std::vector<std::string>{"pass", "12,288", "12,288", "-"}));
  EXPECT_NE(r.standard_output.find("every budget met"), std::string::npos);
  const std::string xml = e2e::ReadTextFile(junit);
  // Two steady phases of 5 checks each, loads, unloads, leaks twice, mismatches.
  EXPECT_NE(xml.find("<testsuites name=\"memframe check\" tests=\"15\" failures=\"0\""), std::string::npos) << xml;
}

TEST_F(DemoGameExports, CheckFailsTheBudgetsTheDemoBreaksWithExactFigures) {
  // One allocation and one byte under the game's worst gameplay frame; 3
  // allocations a frame, which the typical gameplay frame meets and the
  // projectile every 5th frame breaks; the default leak budget (none of the
  // game's own), which the nav mesh breaks.
  const std::string budget = WriteFile("break.json", R"({
    "steady_frame": {"module_classes": {"game": {"allocations": 3}}},
    "steady_worst_frame": {"module_classes": {"game": {"allocations": )" +
                                                         std::to_string(kWorstGameAllocations - 1) + R"(, "bytes": )" +
                                                         std::to_string(kWorstGameBytes - 1) + R"(}}},
    "load_live_bytes": 1000, "loads": 0
  })");
  const std::string junit = File("break.xml");
  const e2e::CommandResult r = Memframe({"check", capture_path_, "--budget", budget, "--junit", junit});
  EXPECT_EQ(r.exit_code, 1) << r.standard_output;
  const std::string frame = std::to_string(kWorstGameFrame);
  const std::string mean = e2e::CheckMean(GameplayPhaseAllocations(), kGameplayPhaseFrames);
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 2: game allocations a frame"),
            (std::vector<std::string>{"FAIL", "3", mean, kGameplayRange}))
      << r.standard_output;
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: game allocations a frame"),
            (std::vector<std::string>{"pass", "3", "0.0", kTitleRange}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 2: worst frame game allocations"),
            (std::vector<std::string>{"FAIL", std::to_string(kWorstGameAllocations - 1),
                                      std::to_string(kWorstGameAllocations), frame}))
      << r.standard_output;
  EXPECT_EQ(
      e2e::CheckRow(r.standard_output, "steady 2: worst frame game bytes"),
      (std::vector<std::string>{"FAIL", std::to_string(kWorstGameBytes - 1), std::to_string(kWorstGameBytes), frame}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "steady 1: worst frame game bytes")[0], "pass");
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "leaked blocks (game)"),
            (std::vector<std::string>{"FAIL", "0", "1", "-"}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "leaked bytes (game)"),
            (std::vector<std::string>{"FAIL", "0", "12,288", "-"}));
  const std::vector<std::string> load = e2e::CheckRow(r.standard_output, "load 1: live bytes after");
  ASSERT_EQ(load.size(), 4u) << r.standard_output;
  EXPECT_EQ(load[0], "FAIL");
  EXPECT_EQ(load[3], std::to_string(FirstGameplayFrame()));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "loads"), (std::vector<std::string>{"FAIL", "0", "1", "-"}));
  EXPECT_EQ(e2e::CheckRow(r.standard_output, "mismatched frees"), (std::vector<std::string>{"pass", "0", "0", "-"}));
  EXPECT_NE(r.standard_output.find("7 of 11 budgets broken"), std::string::npos) << r.standard_output;
  const std::string xml = e2e::ReadTextFile(junit);
  EXPECT_NE(xml.find("tests=\"11\" failures=\"7\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"4 &gt; 3 (frame " + frame + ")\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"" + mean + " &gt; 3 (mean of frames " + kGameplayRange + ")\">"),
            std::string::npos)
      << xml;
}

TEST_F(DemoGameExports, CheckRefusesABadBudgetNamingTheKey) {
  const std::string budget = WriteFile("bad.json", R"({"steady_frame": {"alocations": 3}})");
  const e2e::CommandResult r = Memframe({"check", capture_path_, "--budget", budget});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.standard_output.empty()) << r.standard_output;
}

// The trail allocates in every gameplay frame; the steady frames hold all
// gameplay frames but the first (in the load phase) and the unload frame.
constexpr int kSteadyTrailFrames = kGameplayFrames - 1;

TEST_F(DemoGameExports, CompareFindsExactlyTheParticleTrail) {
  ASSERT_EQ(trail_result_.exit_code, 0) << e2e::ShellCommandLine(trail_command_);
  const e2e::CommandResult r = Memframe({"compare", capture_path_, trail_path_, "--json"});
  ASSERT_EQ(r.exit_code, 0);
  const json c = e2e::ParseJsonOrDiscard(r.standard_output);
  ASSERT_TRUE(c.is_object()) << r.standard_output;
  const json sites = c.value("sites", json::array());
  ASSERT_EQ(sites.size(), 1u) << sites.dump(1);
  const json& trail = sites[0];
  EXPECT_EQ(trail.value("change", ""), "new");
  EXPECT_EQ(trail.value("module_class", ""), "game");
  EXPECT_NE(trail.value("function", "").find(kParticleTrailFunction), std::string::npos) << trail.dump();
  EXPECT_EQ(trail.value("location", "").rfind("particles.cpp:", 0), 0u) << trail.dump();
  EXPECT_EQ(trail["base"].value("allocations", -1), 0);
  EXPECT_EQ(trail["new"].value("allocations", -1), kSteadyTrailFrames);
  EXPECT_EQ(trail["new"].value("bytes", uint64_t{0}), kSteadyTrailFrames * kParticleTrailBytes);
  EXPECT_EQ(c["new"].value("allocations", 0) - c["base"].value("allocations", 0), kSteadyTrailFrames);
  EXPECT_EQ(c["base"].value("steady_frames", 0), c["new"].value("steady_frames", 0));
  EXPECT_TRUE(c.value("leaks_added", json::array()).empty()) << c["leaks_added"].dump(1);
  const json phases = c.value("phases", json::array());
  ASSERT_EQ(phases.size(), kPhases.size());
  // Paired by kind and ordinal: the same phases on both sides.
  for (size_t i = 0; i < kPhases.size(); ++i) {
    EXPECT_EQ(phases[i].value("kind", ""), std::get<0>(kPhases[i])) << i;
    EXPECT_TRUE(phases[i]["base"].is_object() && phases[i]["new"].is_object()) << phases[i].dump();
    EXPECT_EQ(phases[i]["base"]["frames"], phases[i]["new"]["frames"]) << phases[i].dump();
  }
  EXPECT_EQ(phases[2].value("phase", ""), "load 1");
  EXPECT_EQ(phases[3].value("phase", ""), "steady 2");
  // Both runs exited: their leaks compare.
  EXPECT_EQ(c.value("leaks_compared", false), true);
}

TEST_F(DemoGameExports, CompareFailsOnANewGameSiteOnlyWhenAsked) {
  ASSERT_EQ(trail_result_.exit_code, 0) << e2e::ShellCommandLine(trail_command_);
  const e2e::CommandResult regressed = Memframe({"compare", capture_path_, trail_path_, "--fail-on-regression", "50"});
  EXPECT_EQ(regressed.exit_code, 1) << regressed.standard_output;
  EXPECT_NE(regressed.standard_output.find("new game site memframe::demo::EmitParticleTrail"), std::string::npos)
      << regressed.standard_output;
  // Gone is no regression: the trail's removal passes.
  const e2e::CommandResult removed = Memframe({"compare", trail_path_, capture_path_, "--fail-on-regression", "50"});
  EXPECT_EQ(removed.exit_code, 0) << removed.standard_output;
  EXPECT_NE(removed.standard_output.find("Regressions past 50%: none"), std::string::npos) << removed.standard_output;
  const e2e::CommandResult bad = Memframe({"compare", capture_path_, trail_path_, "--fail-on-regression", "ten"});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace memframe::demo
