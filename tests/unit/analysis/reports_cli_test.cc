// The analysis reports through RunReport / RunExport on a synthetic
// capture whose user frames point into this binary: JSON numbers, text
// headers, bad arguments, the grouped hidden sites and both exports.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "memframe/report/export.h"
#include "memframe/report/report.h"
#include "profile.pb.h"
#include "report_run.h"
#include "self_module.h"
#include "test_capture.h"

namespace reports_cli_test {

constexpr int kDrawLine = __LINE__ + 1;
__attribute__((noinline)) uint64_t DrawSprites() { uint64_t a = memframe::testing::CallerReturnAddress(); asm volatile("" ::: "memory"); return a; }

constexpr int kLoadLine = __LINE__ + 1;
__attribute__((noinline)) uint64_t LoadLevel() { uint64_t a = memframe::testing::CallerReturnAddress(); asm volatile("" ::: "memory"); return a; }

}  // namespace reports_cli_test

namespace memframe::analysis {
namespace {

using nlohmann::json;
using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

constexpr uint64_t kDriverBias = 0x7f0000000000;

// A driver that is gone from disk: its frames are "swrast_dri.so+0x..", and
// it is a driver module, so the user frame is the next one, the game's (the
// capture names no executable: the first module is the program).
void AddModules(TestCapture& tc) {
  Module self = testing::SelfModule();
  wire::Packet modules;
  wire::Module* m = modules.mutable_module_map()->add_modules();
  m->set_path(self.path);
  m->set_load_bias(self.load_bias);
  for (const Segment& s : self.segments) {
    wire::Segment* segment = m->add_segments();
    segment->set_vaddr(s.vaddr);
    segment->set_memsz(s.memsz);
  }
  wire::Module* driver = modules.mutable_module_map()->add_modules();
  driver->set_path("/nonexistent/swrast_dri.so");
  driver->set_load_bias(kDriverBias);
  driver->add_segments()->set_memsz(0x100000);
  tc.Add(modules);
}

// Frames 0..9 end. Stacks 1 and 2 are DrawSprites reaching malloc through
// two driver paths: every frame, stack 1 allocates 64 B and stack 2 32 B, both
// freed in the frame. Stack 3 is LoadLevel: frame 4, three blocks (new[]
// 1000 B, malloc 500 B, new 24 B) between the markers level_load_begin and
// level_load_end; the 1000 B block is freed in frame 8 with delete (a
// mismatch), the others stay (leaks).
TestCapture LevelCapture() {
  TestCapture tc;
  AddModules(tc);
  const uint64_t draw = reports_cli_test::DrawSprites();
  tc.Stack(1, {kDriverBias + 0x1000, kDriverBias + 0x2000, draw});
  tc.Stack(2, {kDriverBias + 0x3000, draw});
  tc.Stack(3, {reports_cli_test::LoadLevel()});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Marker(2, "level_load_begin");
  tc.Marker(3, "level_load_end");
  tc.Thread(500, "main");
  std::vector<TestEvent> events;
  uint64_t t = 1000;
  for (uint32_t f = 0; f < 10; ++f) {
    events.push_back(Alloc(++t, f, 0x10000, 64, 1));
    events.push_back(Alloc(++t, f, 0x10100, 32, 2));
    if (f == 4) {
      events.push_back(testing::Marker(++t, f, 2));
      events.push_back(Alloc(++t, f, 0x20000, 1000, 3, 0, 0, wire::FAMILY_NEW_ARRAY));
      events.push_back(Alloc(++t, f, 0x20400, 500, 3));
      events.push_back(Alloc(++t, f, 0x20600, 24, 3, 0, 0, wire::FAMILY_NEW));
      events.push_back(testing::Marker(++t, f, 3));
    }
    if (f == 8) events.push_back(Free(++t, f, 0x20000, 0, 0, wire::FAMILY_NEW));
    events.push_back(Free(++t, f, 0x10000));
    events.push_back(Free(++t, f, 0x10100));
    events.push_back(FrameEnd(++t, f));
  }
  tc.Batch(500, events);
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

using Result = testing::ReportResult;

class ReportsCliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(LevelCapture().Write(file_.path())); }

  Result Run(const std::string& report, std::vector<std::string> args, bool as_json = true) {
    return testing::RunReportCli(file_.path(), report, std::move(args), as_json);
  }
  Result Export(const std::string& format, const std::string& output, bool force = false) {
    std::ostringstream out, err;
    Result r;
    r.code = RunExport({file_.path(), format, output, force}, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
  }

  TempPath file_{"reports_cli"};
};

TEST_F(ReportsCliTest, HiddenGroupsStacksThatDifferOnlyInTheDriver) {
  Result r = Run("hidden", {});
  ASSERT_EQ(r.code, 0) << r.err;
  json sites = r.Json()["phases"][0]["sites"];
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0]["stack_id"], 1);
  EXPECT_EQ(sites[0]["stack_ids"], json({1, 2}));
  EXPECT_EQ(sites[0]["function"], "reports_cli_test::DrawSprites()");
  EXPECT_EQ(sites[0]["location"], "reports_cli_test.cc:" + std::to_string(reports_cli_test::kDrawLine));
  EXPECT_EQ(sites[0]["name"], "swrast_dri.so (via reports_cli_test::DrawSprites reports_cli_test.cc:" +
                                  std::to_string(reports_cli_test::kDrawLine) + ")");
  EXPECT_EQ(sites[0]["module"], "swrast_dri.so");
  EXPECT_EQ(sites[0]["module_class"], "driver");
  // Over the steady frames 1..9 (frame 0 is start-up).
  EXPECT_EQ(sites[0]["allocations"], 18);
  EXPECT_EQ(sites[0]["bytes"], 864);
  EXPECT_EQ(sites[0]["allocs_per_frame_min"], 2);
  EXPECT_EQ(sites[0]["bytes_per_frame_max"], 96);
  EXPECT_EQ(sites[0]["size_min"], 32);
  EXPECT_EQ(sites[0]["size_max"], 64);

  Result summary = Run("", {});
  const json hidden = summary.Json()["phases"][0]["hidden_sites"];
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_EQ(hidden[0]["stack_ids"], json({1, 2}));
  Result text = Run("hidden", {}, false);
  EXPECT_NE(text.out.find("2 stacks that differ only above the user frame (1 2)"), std::string::npos) << text.out;
}

TEST_F(ReportsCliTest, HistogramOfOneFrameNamesTheSites) {
  Result r = Run("histogram", {"--frame", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["range"], json({{"from", 4}, {"to", 4}}));
  EXPECT_EQ(j["allocations"], 5);
  EXPECT_EQ(j["bytes"], 64 + 32 + 1000 + 500 + 24);
  std::vector<std::tuple<int, int, int>> bins;  // bin, allocations, bytes
  for (const json& b : j["bins"]) bins.emplace_back(b["bin"], b["allocations"], b["bytes"]);
  EXPECT_EQ(bins, (std::vector<std::tuple<int, int, int>>{{5, 1, 24}, {6, 1, 32}, {7, 1, 64}, {9, 1, 500}, {10, 1, 1000}}));
  EXPECT_EQ(j["bins"][1]["size_min"], 32);
  EXPECT_EQ(j["bins"][1]["size_max"], 63);
  EXPECT_EQ(j["bins"][1]["sites"][0]["stack_id"], 2);
  EXPECT_EQ(j["bins"][1]["sites"][0]["function"], "reports_cli_test::DrawSprites()");

  Result all = Run("histogram", {});
  EXPECT_EQ(all.Json()["allocations"], 23);
  Result range = Run("histogram", {"--from", "0", "--to", "1"}, false);
  EXPECT_EQ(range.out.rfind("Allocation sizes in frames 0..1: 4 allocations, 192 B\n", 0), 0u) << range.out;
}

TEST_F(ReportsCliTest, DiffBetweenMarkersShowsWhatTheLoadLeft) {
  Result r = Run("diff", {"level_load_begin", "level_load_end"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["a"]["kind"], "marker");
  EXPECT_EQ(j["a"]["frame"], 4);
  EXPECT_EQ(j["a"]["bytes"], 96);  // stacks 1 and 2's blocks of frame 4
  EXPECT_EQ(j["b"]["bytes"], 96 + 1524);
  EXPECT_EQ(j["delta_bytes"], 1524);
  ASSERT_EQ(j["sites"].size(), 1u);
  EXPECT_EQ(j["sites"][0]["change"], "new");
  EXPECT_EQ(j["sites"][0]["function"], "reports_cli_test::LoadLevel()");
  EXPECT_EQ(j["sites"][0]["delta_blocks"], 3);

  json frames = Run("diff", {"3", "end"}).Json();
  EXPECT_EQ(frames["a"]["bytes"], 0);
  EXPECT_EQ(frames["b"]["kind"], "end");
  EXPECT_EQ(frames["delta_bytes"], 524);
  Result text = Run("diff", {"start", "9"}, false);
  EXPECT_EQ(text.out.rfind("Live heap at the start: 0 blocks, 0 B\nLive heap at the end of frame 9: 2 blocks, 524 B\n", 0),
            0u)
      << text.out;
}

TEST_F(ReportsCliTest, MismatchesNamesTheFamiliesAndSaysFreeStacksAreMissing) {
  Result r = Run("mismatches", {});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["total"], 1);
  EXPECT_EQ(j["free_stacks_recorded"], false);
  ASSERT_EQ(j["mismatches"].size(), 1u);
  EXPECT_EQ(j["mismatches"][0]["kind"], "family");
  EXPECT_EQ(j["mismatches"][0]["allocated_with"], "new[]");
  EXPECT_EQ(j["mismatches"][0]["freed_with"], "delete");
  EXPECT_EQ(j["mismatches"][0]["first_frame"], 8);
  EXPECT_EQ(j["mismatches"][0]["alloc_site"]["function"], "reports_cli_test::LoadLevel()");
  EXPECT_TRUE(j["mismatches"][0]["free_site"].is_null());
  Result text = Run("mismatches", {}, false);
  EXPECT_NE(text.out.find("#1 new[] freed with delete: 1 time, 1000 B, first in frame 8"), std::string::npos)
      << text.out;
}

TEST_F(ReportsCliTest, LifetimesClassesEverySite) {
  Result r = Run("lifetimes", {});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  std::map<int, std::string> classes;
  for (const json& s : j["phases"][0]["sites"]) classes[s["stack_id"]] = s["class"];
  // Stack 3: of its three blocks one dies in frame 8 (no boundary) and two
  // live to the end, 2/3 < 95%: no class fits.
  EXPECT_EQ(classes, (std::map<int, std::string>{{1, "frame"}, {2, "frame"}, {3, "general"}}));
  // Judged by the blocks of the steady frames 1..9 (frame 0 is start-up).
  EXPECT_EQ(j["phases"][0]["phase"], "steady 1");
  EXPECT_EQ(j["phases"][0]["judged_frames"]["ranges"], json({{{"from", 1}, {"to", 9}}}));
  EXPECT_EQ(j["phases"][0]["sites"][0]["calls_saved"], 18);
  Result all = Run("lifetimes", {"--all-frames"});
  EXPECT_EQ(all.Json()["phases"][0]["judged_frames"]["judged"], "all");
  EXPECT_EQ(all.Json()["phases"][0]["sites"][0]["calls_saved"], 20);
  EXPECT_EQ(j["phases"][0]["sites"][0]["peak_live_blocks"], 1);
}

TEST_F(ReportsCliTest, FragmentationOfOneFrameAndTheMap) {
  TempPath png("reports_cli.png");
  Result r = Run("fragmentation", {"--frame", "4", "--png", png.path(), "--color", "site"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  ASSERT_EQ(j["samples"].size(), 1u);
  const json& heap = j["samples"][0]["heap"];
  // Frame 4 freed its per-frame blocks: the three level blocks are left.
  EXPECT_EQ(heap["regions"], 1);
  EXPECT_EQ(heap["blocks"], 3);
  EXPECT_EQ(heap["live_bytes"], 1524);
  EXPECT_EQ(heap["span"], 0x20618 - 0x20000);
  EXPECT_EQ(heap["holes"], 0);  // the 24 B and 12 B gaps between them are allocator slack

  EXPECT_EQ(j["png"]["coloring"], "site");
  EXPECT_EQ(png.ReadAll().substr(1, 3), "PNG");

  json timeline = Run("fragmentation", {}).Json();
  EXPECT_EQ(timeline["samples"].size(), 10u);
}

TEST_F(ReportsCliTest, BadArgumentsAndUnknownCutsExitTwoWithNothingOnStdout) {
  struct Case {
    std::string report;
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"diff", {"3"}, "report 'diff' needs A B (each a frame number, a marker name, 'start' or 'end')"},
      {"diff", {"3", "boss"}, "'boss' is neither a frame number, 'start', 'end' nor the name of a marker in the capture"},
      {"diff", {}, "the capture has no load after start-up (report phases); name the frames or markers to compare"},
      {"phases", {"--from", "1"}, "report 'phases' does not take '--from'"},
      {"threads", {"extra"}, "report 'threads' does not take 'extra'"},
      {"diff", {"3", "42"}, "frame 42 is not in the capture (frames 0..9)"},
      {"histogram", {"--frame", "10"}, "frame 10 is not in the capture (frames 0..9)"},
      {"histogram", {"--frame", "1", "--from", "0"}, "--frame selects one frame; it cannot be combined with --from or --to"},
      {"fragmentation", {"--color", "red"}, "--color wants 'age' or 'site', not 'red'"},
      {"fragmentation", {"--png", "/nonexistent/dir/map.png"}, "cannot create /nonexistent/dir/map.png: No such file or directory"},
      {"lifetimes", {"--frame", "1"}, "report 'lifetimes' does not take '--frame'"},
      {"mismatches", {"extra"}, "report 'mismatches' does not take 'extra'"},
  };
  for (const Case& c : cases) {
    Result r = Run(c.report, c.args);
    EXPECT_EQ(r.code, 2) << c.report;
    EXPECT_EQ(r.out, "") << c.report;
    EXPECT_EQ(r.err.rfind("memframe: error: " + c.err, 0), 0u) << r.err;
  }
}

std::string Gunzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

TEST_F(ReportsCliTest, PprofHasTheFourSampleTypesAndSymbolizedLocations) {
  TempPath out("reports_cli.pb.gz");
  Result r = Export("pprof", out.path());
  ASSERT_EQ(r.code, 0) << r.err;
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(Gunzip(out.ReadAll())));
  ASSERT_GE(p.string_table_size(), 1);
  EXPECT_EQ(p.string_table(0), "");
  auto str = [&](int64_t i) { return p.string_table(static_cast<int>(i)); };
  std::vector<std::string> types;
  for (const auto& t : p.sample_type()) types.push_back(str(t.type()) + "/" + str(t.unit()));
  EXPECT_EQ(types, (std::vector<std::string>{"alloc_objects/count", "alloc_space/bytes", "inuse_objects/count",
                                            "inuse_space/bytes"}));
  EXPECT_EQ(str(p.default_sample_type()), "alloc_space");
  ASSERT_EQ(p.sample_size(), 3);
  // Samples follow the stack ids: 1, 2, 3.
  auto values = [&](int i) {
    const auto& v = p.sample(i).value();
    return std::vector<int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(values(0), (std::vector<int64_t>{10, 640, 0, 0}));
  EXPECT_EQ(values(1), (std::vector<int64_t>{10, 320, 0, 0}));
  EXPECT_EQ(values(2), (std::vector<int64_t>{3, 1524, 2, 524}));
  // Stack 3's one location resolves to LoadLevel in this binary's mapping.
  ASSERT_EQ(p.sample(2).location_id_size(), 1);
  const auto& location = p.location(static_cast<int>(p.sample(2).location_id(0)) - 1);
  EXPECT_EQ(location.id(), p.sample(2).location_id(0));
  ASSERT_GE(location.line_size(), 1);
  const auto& function = p.function(static_cast<int>(location.line(location.line_size() - 1).function_id()) - 1);
  EXPECT_EQ(str(function.name()), "reports_cli_test::LoadLevel()");
  EXPECT_EQ(location.line(location.line_size() - 1).line(), reports_cli_test::kLoadLine);
  EXPECT_EQ(str(p.mapping(static_cast<int>(location.mapping_id()) - 1).filename()), testing::SelfModule().path);
}

TEST_F(ReportsCliTest, FoldedStacksAreOutermostFirstAndSumToTheSites) {
  TempPath out("reports_cli.folded");
  Result r = Export("folded", out.path());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string folded = out.ReadAll();
  std::istringstream lines(folded);
  std::string line;
  uint64_t total = 0;
  size_t count = 0;
  while (std::getline(lines, line)) {
    ++count;
    total += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(total, 640u + 320 + 1524);
  EXPECT_NE(folded.find("reports_cli_test::DrawSprites();swrast_dri.so+0x3000 320\n"), std::string::npos) << folded;
  EXPECT_NE(folded.find("reports_cli_test::LoadLevel() 1524\n"), std::string::npos) << folded;
}

TEST_F(ReportsCliTest, ExportRefusesBadRequests) {
  Result format = Export("svg", "/tmp/x");
  EXPECT_EQ(format.code, 2);
  EXPECT_EQ(format.err, "memframe: error: unknown export format 'svg' (formats: pprof, folded, chrome-json, perfetto)\n");
  Result output = Export("folded", "/nonexistent/dir/out.folded");
  EXPECT_EQ(output.code, 2);
  EXPECT_EQ(output.err, "memframe: error: cannot create /nonexistent/dir/out.folded: No such file or directory\n");
}

TEST_F(ReportsCliTest, ExportNeverWritesOverTheCaptureItReads) {
  const std::string before = file_.ReadAll();
  TempPath link("reports_cli_link.mfc");
  ASSERT_EQ(symlink(file_.path().c_str(), link.path().c_str()), 0);
  for (const std::string& output : {file_.path(), link.path()}) {
    Result r = Export("folded", output, /*force=*/true);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "memframe: error: refusing to write " + output + ": it is " +
                         (output == file_.path() ? "" : file_.path() + ", ") + "an input of this command\n");
  }
  EXPECT_EQ(file_.ReadAll(), before);
}

TEST_F(ReportsCliTest, ExportReplacesAnotherCaptureOnlyWhenForced) {
  TempPath other("reports_cli_other.mfc");
  other.WriteAll(file_.ReadAll());
  Result refused = Export("folded", other.path());
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(refused.err, "memframe: error: " + other.path() +
                             " holds a memframe capture already (pass --force to replace it)\n");
  EXPECT_EQ(other.ReadAll(), file_.ReadAll());
  Result forced = Export("folded", other.path(), /*force=*/true);
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(other.ReadAll().find("reports_cli_test::LoadLevel() 1524\n"), std::string::npos);
}

TEST_F(ReportsCliTest, APngNeverReplacesTheCapture) {
  const std::string before = file_.ReadAll();
  Result r = Run("fragmentation", {"--png", file_.path()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memframe: error: refusing to write " + file_.path() + ": it is an input of this command\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(file_.ReadAll(), before);
}

// Per-class figures of every frame: the driver's 96 B a frame, allocated
// and freed; the game's level (frame 4) and its 1000 B block freed in frame 8.
TEST_F(ReportsCliTest, FramesSplitByClass) {
  Result r = Run("frames", {});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["module_classes"], json({"game", "driver"}));
  EXPECT_EQ(j["module_classes_shown"], json({"game", "engine", "driver", "system"}));
  const json& f4 = j["frames"][4];
  EXPECT_EQ(f4["frame"], 4);
  EXPECT_EQ(f4["allocations"], 5);
  EXPECT_EQ(f4["live_bytes"], 1524);
  EXPECT_EQ(f4["mapped_bytes"], 0);
  EXPECT_EQ(f4["classes"]["game"], json({{"allocations", 3}, {"frees", 0}, {"bytes_allocated", 1524},
                                          {"bytes_freed", 0}, {"live_bytes", 1524}, {"mapped_bytes", 0}}));
  EXPECT_EQ(f4["classes"]["driver"], json({{"allocations", 2}, {"frees", 2}, {"bytes_allocated", 96},
                                            {"bytes_freed", 96}, {"live_bytes", 0}, {"mapped_bytes", 0}}));
  EXPECT_EQ(j["frames"][8]["classes"]["game"]["frees"], 1);
  EXPECT_EQ(j["frames"][8]["classes"]["game"]["live_bytes"], 524);

  Result game = Run("frames", {"--only", "game", "--from", "4", "--to", "4"});
  ASSERT_EQ(game.code, 0) << game.err;
  EXPECT_EQ(game.Json()["module_classes"], json({"game"}));
  EXPECT_EQ(game.Json()["frames"][0]["allocations"], 3);
  EXPECT_EQ(game.Json()["frames"][0]["frees"], 0);

  Result text = Run("frames", {"--from", "4", "--to", "4"}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("frame  phase     class     allocs  frees  bytes alloc  bytes freed  live bytes  mapped  alloc time"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("    4  steady 1  all            5      2     1.58 KiB         96 B    1.49 KiB     0 B        0 ns\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("         game         3      0     1.49 KiB          0 B    1.49 KiB     0 B\n"),
            std::string::npos)
      << text.out;
  Result driver = Run("frames", {"--only", "driver", "--from", "4", "--to", "4"}, false);
  EXPECT_NE(driver.out.find("(module classes shown: driver)"), std::string::npos) << driver.out;
  EXPECT_EQ(driver.out.find("  game"), std::string::npos) << driver.out;
}

TEST_F(ReportsCliTest, AFrameRangePastTheCaptureIsAnError) {
  Result from = Run("frames", {"--from", "100000"}, false);
  EXPECT_EQ(from.code, 2);
  EXPECT_EQ(from.out, "");
  EXPECT_EQ(from.err, "memframe: error: --from 100000 is after the capture's last frame (frames 0..9)\n");
  Result sites = Run("sites", {"--from", "10000", "--to", "20000"}, false);
  EXPECT_EQ(sites.code, 2);
  EXPECT_EQ(sites.err, "memframe: error: --from 10000 is after the capture's last frame (frames 0..9)\n");
}

}  // namespace
}  // namespace memframe::analysis
