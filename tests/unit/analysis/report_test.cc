// RunReport / PrintRunSummary end to end on a synthetic capture whose stacks
// point into this test binary, so names and lines are real.
#include "memframe/report/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <sstream>

#include "report_run.h"
#include "self_module.h"
#include "test_capture.h"

namespace report_test {

constexpr int kSpawnLine = __LINE__ + 1;
__attribute__((noinline)) uint64_t SpawnDamageLabel() { uint64_t a = memframe::testing::CallerReturnAddress(); asm volatile("" ::: "memory"); return a; }

constexpr int kLoadLine = __LINE__ + 1;
__attribute__((noinline)) uint64_t LoadLevel() { uint64_t a = memframe::testing::CallerReturnAddress(); asm volatile("" ::: "memory"); return a; }

__attribute__((noinline)) uint64_t DrawHud() { uint64_t a = memframe::testing::CallerReturnAddress(); asm volatile("" ::: "memory"); return a; }

}  // namespace report_test

namespace memframe::analysis {
namespace {

using nlohmann::json;
using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

// Frames 0..9 end; frame 10 does not. Every frame: stack 1 allocates and
// frees 48 bytes twice. Frames 0 and 5: stack 2 allocates 100 bytes and
// never frees them. `ended`: the stream's end and the recorder's closing
// record follow (a test that adds records adds them itself after its own).
TestCapture GameCapture(bool ended = true) {
  TestCapture tc;
  analysis::Module self = testing::SelfModule();
  wire::Packet modules;
  wire::Module* m = modules.mutable_module_map()->add_modules();
  m->set_path(self.path);
  m->set_load_bias(self.load_bias);
  for (const Segment& s : self.segments) {
    wire::Segment* segment = m->add_segments();
    segment->set_vaddr(s.vaddr);
    segment->set_memsz(s.memsz);
  }
  tc.Add(modules);
  tc.Stack(1, {report_test::SpawnDamageLabel()});
  tc.Stack(2, {report_test::LoadLevel()});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Thread(500, "main");
  std::vector<TestEvent> events;
  uint64_t tick = 1000;
  for (uint32_t frame = 0; frame <= 10; ++frame) {
    if (frame == 0 || frame == 5) events.push_back(Alloc(++tick, frame, 0x900000 + frame, 100, 2, 10));
    for (int i = 0; i < 2; ++i) {
      events.push_back(Alloc(++tick, frame, 0x100000, 48, 1, 20));
      events.push_back(Free(++tick, frame, 0x100000, 5));
    }
    if (frame < 10) events.push_back(FrameEnd(++tick, frame));
  }
  tc.Batch(500, events);
  if (ended) {
    tc.End();
    tc.Recorder(true, 0);
  }
  return tc;
}

using Result = testing::ReportResult;

Result RunCli(const std::string& path, const std::string& report, std::vector<std::string> args, bool as_json) {
  return testing::RunReportCli(path, report, std::move(args), as_json);
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(GameCapture().Write(file_.path())); }
  const std::string& path() const { return file_.path(); }
  TempPath file_{"report"};
};

TEST_F(ReportTest, SummaryJson) {
  Result r = RunCli(path(), "", {}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  json j = r.Json();
  EXPECT_EQ(j["capture"]["path"], path());
  EXPECT_EQ(j["capture"]["program"], "/opt/game");
  EXPECT_EQ(j["capture"]["pid"], 42);
  EXPECT_EQ(j["capture"]["exit_status"], 0);
  EXPECT_EQ(j["capture"]["complete"], true);
  EXPECT_EQ(j["capture"]["error"], "");
  EXPECT_EQ(j["frames"], 10);
  EXPECT_EQ(j["frame_source"], "glfwSwapBuffers");
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["allocations"], 24);
  EXPECT_EQ(j["frees"], 22);
  EXPECT_EQ(j["bytes_allocated"], 22 * 48 + 200);
  EXPECT_EQ(j["peak_live_bytes"], 248);
  EXPECT_EQ(j["peak_live_frame"], 5);
  EXPECT_EQ(j["leaks"], json({{"blocks", 2}, {"bytes", 200}, {"are_leaks", true}}));
  // Hidden sites judge steady play: frame 0 is start-up (phases.h), so the
  // ended frames 1..9.
  ASSERT_EQ(j["phases"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["phase"], "steady 1");
  EXPECT_EQ(j["phases"][0]["judged_frames"],
            json({{"judged", "steady"},
                  {"ranges", {{{"from", 1}, {"to", 9}}}},
                  {"frame_count", 9},
                  {"all_frames_option", "--all-frames"}}));
  ASSERT_EQ(j["phases"][0]["hidden_sites"].size(), 1u);
  const json& site = j["phases"][0]["hidden_sites"][0];
  EXPECT_EQ(site["stack_id"], 1);
  EXPECT_EQ(site["function"], "report_test::SpawnDamageLabel()");
  EXPECT_EQ(site["location"], "report_test.cc:" + std::to_string(report_test::kSpawnLine));
  EXPECT_EQ(site["allocations"], 18);
  EXPECT_EQ(site["bytes"], 864);
  EXPECT_EQ(site["frames_with_allocations"], 9);
  EXPECT_EQ(site["frames_in_range"], 9);
  EXPECT_EQ(site["allocs_per_frame_median"], 2);
  EXPECT_EQ(site["bytes_per_frame_max"], 96);
  EXPECT_EQ(site["size_min"], 48);
  // The stack is named by id and written once, at the end.
  EXPECT_FALSE(site.contains("stack"));
  ASSERT_EQ(j["stacks"]["1"].size(), 1u);
  const json& frame = j["stack_frames"][j["stacks"]["1"][0].get<size_t>()];
  EXPECT_EQ(frame["function"], "report_test::SpawnDamageLabel()");
  EXPECT_EQ(frame["line"], report_test::kSpawnLine);
  EXPECT_EQ(frame["module"], testing::SelfModule().path);
  EXPECT_EQ(frame["inlined"], false);
  EXPECT_EQ(frame["address"].get<std::string>().substr(0, 2), "0x");
}

// Three sites whose stacks share frames: each stack is written once, as the
// indices of its frames, and each distinct frame once, whatever the rows.
TEST(ReportJson, StacksAreWrittenOnceByTheirFrames) {
  TestCapture tc;
  tc.Marker(1, "glfwSwapBuffers");
  tc.Thread(500, "main");
  tc.Stack(1, {0xa0, 0xb0, 0xc0});
  tc.Stack(2, {0xd0, 0xb0, 0xc0});
  tc.Stack(3, {0xa0, 0xb0});
  tc.Batch(500, {Alloc(1000, 0, 0x1000, 16, 1), Alloc(1001, 0, 0x2000, 32, 2), Alloc(1002, 0, 0x3000, 64, 3),
                 FrameEnd(1003, 0)});
  tc.End();
  tc.Recorder(true, 0);
  TempPath file("report_json_stacks");
  ASSERT_TRUE(tc.Write(file.path()));
  const testing::ReportResult r = testing::RunReportCli(file.path(), "sites", {"--all-frames"}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = r.Json();
  ASSERT_EQ(j["phases"].size(), 1u);
  ASSERT_EQ(j["phases"][0]["sites"].size(), 3u);
  for (const json& site : j["phases"][0]["sites"]) EXPECT_FALSE(site.contains("stack")) << site;
  const json& frames = j["stack_frames"];
  ASSERT_EQ(frames.size(), 4u);  // 0xa0, 0xb0, 0xc0, 0xd0
  auto addresses = [&](const char* id) {
    std::vector<std::string> out;
    for (const json& index : j["stacks"][id]) out.push_back(frames[index.get<size_t>()]["address"]);
    return out;
  };
  EXPECT_EQ(addresses("1"), (std::vector<std::string>{"0xa0", "0xb0", "0xc0"}));
  EXPECT_EQ(addresses("2"), (std::vector<std::string>{"0xd0", "0xb0", "0xc0"}));
  EXPECT_EQ(addresses("3"), (std::vector<std::string>{"0xa0", "0xb0"}));
  EXPECT_EQ(j["stacks"].size(), 3u);
  // One line a row: the layout grows with the rows, not with their fields.
  size_t row_lines = 0;
  for (size_t at = 0; (at = r.out.find("        {\"stack_id\":", at)) != std::string::npos; ++at) ++row_lines;
  EXPECT_EQ(row_lines, 3u) << r.out;
}

TEST_F(ReportTest, FramesJsonWithRange) {
  Result r = RunCli(path(), "frames", {"--from", "4", "--to", "5"}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json frames = r.Json()["frames"];
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0], json({{"frame", 4},
                             {"phase", "steady 1"},
                             {"allocations", 2},
                             {"frees", 2},
                             {"bytes_allocated", 96},
                             {"bytes_freed", 96},
                             {"live_bytes", 100},
                             {"mapped_bytes", 0},
                             {"peak_live_bytes", 148},
                             {"alloc_time_ns", 50},
                             {"slowest_alloc_ns", 20},
                             {"spike", false},
                             {"classes",
                              {{"game",
                                {{"allocations", 2},
                                 {"frees", 2},
                                 {"bytes_allocated", 96},
                                 {"bytes_freed", 96},
                                 {"live_bytes", 100},
                                 {"mapped_bytes", 0}}}}}}));
  EXPECT_EQ(frames[1]["frame"], 5);
  EXPECT_EQ(frames[1]["live_bytes"], 200);
  EXPECT_EQ(frames[1]["peak_live_bytes"], 248);
}

// `--opt=value` is `--opt value` (report_args.cc).
TEST_F(ReportTest, OptionValuesAfterAnEqualsSign) {
  Result spaced = RunCli(path(), "frames", {"--from", "4", "--to", "5"}, true);
  Result joined = RunCli(path(), "frames", {"--from=4", "--to=5"}, true);
  ASSERT_EQ(joined.code, 0) << joined.err;
  EXPECT_EQ(joined.out, spaced.out);
  EXPECT_EQ(RunCli(path(), "hidden", {"--min-fraction=0.25"}, true).Json()["min_fraction"], 0.25);
}

TEST_F(ReportTest, AllFramesIncludeTheUnfinishedOne) {
  Result r = RunCli(path(), "frames", {}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.Json()["frames"].size(), 11u);
}

TEST_F(ReportTest, HiddenJson) {
  Result r = RunCli(path(), "hidden", {"--min-fraction", "0.2", "--all-frames"}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["range"], json({{"from", 0}, {"to", 9}}));
  EXPECT_EQ(j["min_fraction"], 0.2);
  ASSERT_EQ(j["phases"].size(), 1u);
  const json& all = j["phases"][0];
  EXPECT_TRUE(all["phase"].is_null());
  EXPECT_EQ(all["judged_frames"]["judged"], "all");
  EXPECT_EQ(all["judged_frames"]["ranges"], json({{{"from", 0}, {"to", 9}}}));
  ASSERT_EQ(all["sites"].size(), 2u);
  EXPECT_EQ(all["sites"][1]["function"], "report_test::LoadLevel()");
  EXPECT_EQ(all["sites"][1]["frames_with_allocations"], 2);
}

// Start-up (frame 0) is no steady play: LoadLevel's allocation there is not
// judged, and its one in frame 5 is 1 of the 9 steady frames, under 20%.
TEST_F(ReportTest, HiddenJudgesSteadyPlayByDefault) {
  Result r = RunCli(path(), "hidden", {"--min-fraction", "0.2"}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  ASSERT_EQ(j["phases"].size(), 1u);
  const json& steady = j["phases"][0];
  EXPECT_EQ(steady["phase"], "steady 1");
  EXPECT_EQ(steady["judged_frames"]["judged"], "steady");
  EXPECT_EQ(steady["judged_frames"]["ranges"], json({{{"from", 1}, {"to", 9}}}));
  EXPECT_EQ(steady["judged_frames"]["frame_count"], 9);
  ASSERT_EQ(steady["sites"].size(), 1u);
  EXPECT_EQ(steady["sites"][0]["function"], "report_test::SpawnDamageLabel()");
  EXPECT_EQ(steady["sites"][0]["frames_in_range"], 9);
  Result text = RunCli(path(), "hidden", {"--min-fraction", "0.2"}, false);
  EXPECT_NE(text.out.find("steady 1: frames 1..9 (9 frames)"), std::string::npos) << text.out;
  // A range judges its steady frames as one.
  Result range = RunCli(path(), "hidden", {"--min-fraction", "0.2", "--from", "0"}, false);
  EXPECT_NE(range.out.find("the steady frames 1..9 (9 frames; start-up and loads left out, --all-frames judges "
                           "every frame)"),
            std::string::npos)
      << range.out;
}

TEST_F(ReportTest, LeaksJson) {
  Result r = RunCli(path(), "leaks", {}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["total_blocks"], 2);
  EXPECT_EQ(j["total_bytes"], 200);
  ASSERT_EQ(j["sites"].size(), 1u);
  EXPECT_EQ(j["sites"][0]["blocks"], 2);
  EXPECT_EQ(j["sites"][0]["leaked_bytes"], 200);
  EXPECT_EQ(j["sites"][0]["location"], "report_test.cc:" + std::to_string(report_test::kLoadLine));
}

TEST_F(ReportTest, SitesJsonByBytes) {
  Result r = RunCli(path(), "sites", {"--to", "4"}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json sites = r.Json()["phases"][0]["sites"];
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0]["stack_id"], 1);
  EXPECT_EQ(sites[0]["bytes"], 480);
  EXPECT_EQ(sites[0]["frames_in_range"], 5);
  EXPECT_EQ(sites[1]["stack_id"], 2);
  EXPECT_EQ(sites[1]["allocations"], 1);
}

TEST_F(ReportTest, TextReportsNameTheFunctions) {
  for (const char* report : {"", "frames", "hidden", "leaks", "sites"}) {
    Result r = RunCli(path(), report, {}, false);
    EXPECT_EQ(r.code, 0) << report << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << report;
  }
  Result hidden = RunCli(path(), "hidden", {}, false);
  EXPECT_NE(hidden.out.find("report_test::SpawnDamageLabel()"), std::string::npos) << hidden.out;
  EXPECT_NE(hidden.out.find("report_test.cc:" + std::to_string(report_test::kSpawnLine)), std::string::npos);

  std::ostringstream out, err;
  EXPECT_EQ(PrintRunSummary(path(), out, err), 0);
  EXPECT_NE(out.str().find("Frames      10 rendered (glfwSwapBuffers), 1 thread"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("report_test::SpawnDamageLabel()"), std::string::npos);
  EXPECT_NE(out.str().find("Leaks       2 blocks, 200 B live at exit\n"), std::string::npos) << out.str();
}

TEST_F(ReportTest, UsageErrorsExitTwo) {
  Result unknown = RunCli(path(), "bogus", {}, false);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.err, "memframe: error: unknown report 'bogus' (reports: allocators, diff, fragmentation, frames, gpu, hidden, histogram, leaks, lifetimes, locality, mismatches, phases, sites, slow, threads)\n");
  EXPECT_EQ(unknown.out, "");

  Result bad_value = RunCli(path(), "frames", {"--from", "ten"}, false);
  EXPECT_EQ(bad_value.code, 2);
  EXPECT_EQ(bad_value.err, "memframe: error: --from wants a frame number, not 'ten'\n");

  EXPECT_EQ(RunCli(path(), "frames", {"--from"}, false).err, "memframe: error: --from needs a value\n");
  EXPECT_EQ(RunCli(path(), "leaks", {"--from", "1"}, false).err,
            "memframe: error: report 'leaks' does not take '--from' (memframe report CAPTURE leaks --help lists its "
            "options)\n");
  EXPECT_EQ(RunCli(path(), "leaks", {"--all-frames=1"}, false).err,
            "memframe: error: report 'leaks' does not take '--all-frames' (memframe report CAPTURE leaks --help lists "
            "its options)\n");
  EXPECT_EQ(RunCli(path(), "hidden", {"--all-frames=yes"}, false).err, "memframe: error: --all-frames takes no value\n");
  EXPECT_EQ(RunCli(path(), "frames", {"--from=ten"}, false).err,
            "memframe: error: --from wants a frame number, not 'ten'\n");
  EXPECT_EQ(RunCli(path(), "hidden", {"--min-fraction", "2"}, false).err,
            "memframe: error: --min-fraction wants a number in (0, 1], not '2'\n");
  EXPECT_EQ(RunCli(path(), "frames", {"--from", "5", "--to", "4"}, false).err,
            "memframe: error: --from 5 is after --to 4\n");
}

TEST(Report, UnreadableCaptureExitsTwo) {
  TempPath garbage("report_garbage");
  garbage.WriteAll("garbage");
  Result r = RunCli(garbage.path(), "", {}, true);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memframe: error: " + garbage.path() + " is not a memframe capture (bad magic)\n");
  EXPECT_EQ(r.out, "");

  Result missing = RunCli("/nonexistent.memframe", "", {}, false);
  EXPECT_EQ(missing.code, 2);
}

TEST(Report, CaptureWithoutAgentDataExitsTwo) {
  TempPath file("report_empty");
  std::string error;
  auto writer = wire::CaptureWriter::Create(file.path(), &error);
  ASSERT_TRUE(writer) << error;
  wire::Packet recorder;  // only the recorder's own records, no agent stream
  recorder.mutable_recorder()->set_finished(true);
  const std::string bytes = recorder.SerializeAsString();
  ASSERT_TRUE(writer->Append(0, bytes.data(), bytes.size()));
  ASSERT_TRUE(writer->Close());
  Result r = RunCli(file.path(), "", {}, false);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "memframe: error: " + file.path() + " holds no data from the program (the agent never connected)\n");
}

TEST(Report, TruncatedCaptureReportsWhatWasReadAndExitsOne) {
  TempPath full("report_full");
  ASSERT_TRUE(GameCapture().Write(full.path()));
  const std::string bytes = full.ReadAll();
  TempPath cut("report_cut");
  cut.WriteAll(bytes.substr(0, bytes.size() - 40));  // inside the EndOfStream / RecorderInfo records
  Result r = RunCli(cut.path(), "", {}, true);
  EXPECT_EQ(r.code, 1);
  json j = r.Json();
  EXPECT_EQ(j["frames"], 10);
  EXPECT_EQ(j["capture"]["complete"], false);
  EXPECT_NE(j["capture"]["error"], "");
  EXPECT_EQ(r.err, "memframe: warning: " + j["capture"]["error"].get<std::string>() + " — reporting the " +
                       std::to_string(j["events"].get<int>()) + " events read before it\n");

  for (size_t size = 12; size < bytes.size(); size += 97) {
    cut.WriteAll(bytes.substr(0, size));
    Result any = RunCli(cut.path(), "hidden", {}, false);
    EXPECT_TRUE(any.code == 1 || any.code == 2) << "cut at " << size << ": " << any.err;
  }
}

// Two hidden sites in the same function, reached from different callers (a
// stripped game drawing through one function): the rows must not look alike.
TEST(ReportLookAlikes, RowsWithTheSameFunctionNameTheCallerThatTellsThemApart) {
  TestCapture tc = GameCapture(/*ended=*/false);
  tc.Stack(3, {report_test::SpawnDamageLabel(), report_test::LoadLevel()});
  tc.Stack(4, {report_test::SpawnDamageLabel(), report_test::DrawHud()});
  std::vector<TestEvent> events;
  uint64_t tick = 5000;
  for (uint32_t frame = 0; frame < 10; ++frame) {
    events.push_back(Alloc(++tick, frame, 0x200000, 32, 3, 10));
    events.push_back(Free(++tick, frame, 0x200000, 5));
    events.push_back(Alloc(++tick, frame, 0x300000, 16, 4, 10));
    events.push_back(Free(++tick, frame, 0x300000, 5));
  }
  tc.Batch(501, events);
  tc.End();
  tc.Recorder(true, 0);
  TempPath file("lookalikes");
  ASSERT_TRUE(tc.Write(file.path()));

  Result text = RunCli(file.path(), "hidden", {}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("report_test::SpawnDamageLabel() <- report_test::LoadLevel()"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("report_test::SpawnDamageLabel() <- report_test::DrawHud()"), std::string::npos)
      << text.out;

  Result j = RunCli(file.path(), "hidden", {}, true);
  ASSERT_EQ(j.code, 0) << j.err;
  std::map<uint64_t, std::string> via;
  const json parsed = j.Json();
  for (const json& site : parsed["phases"][0]["sites"])
    via[site["stack_id"].get<uint64_t>()] = site["via"].get<std::string>();
  EXPECT_EQ(via[1], "");  // stack 1 has no caller to name
  EXPECT_EQ(via[3], "report_test::LoadLevel()");
  EXPECT_EQ(via[4], "report_test::DrawHud()");
}

// A GPU buffer event of thread 501 in `frame` of GameCapture (its tick is
// just before that frame's end).
void AddGpuBuffer(wire::Packet& packet, wire::GpuOp op, uint64_t name, uint64_t bytes, uint64_t frame,
                  uint32_t stack) {
  wire::GpuEvent* e = packet.mutable_gpu()->add_events();
  e->set_op(op);
  e->set_kind(wire::GPU_BUFFER);
  e->set_context(1);
  e->set_name(name);
  e->set_bytes(bytes);
  e->set_ticks(1005 + 5 * frame);
  e->set_frame(frame);
  e->set_thread_id(501);
  e->set_stack_id(stack);
}

// A buffer made anew and the last one deleted in every frame of a stretch
// (a stream of short-lived objects): the frames alike are one row of the
// text, every frame of the JSON.
TEST(ReportGpu, ConsecutiveFramesAlikeAreOneRow) {
  TestCapture tc = GameCapture(/*ended=*/false);
  tc.Stack(3, {report_test::SpawnDamageLabel(), report_test::LoadLevel()});
  wire::Packet packet;
  AddGpuBuffer(packet, wire::GPU_STORAGE, 1, 4096, 1, 3);
  for (uint64_t frame = 2; frame <= 4; ++frame) {
    AddGpuBuffer(packet, wire::GPU_DELETE, frame - 1, 0, frame, 3);
    AddGpuBuffer(packet, wire::GPU_STORAGE, frame, 1000, frame, 3);
  }
  tc.Add(packet);
  tc.End();
  tc.Recorder(true, 0);
  TempPath file("gpu_runs");
  ASSERT_TRUE(tc.Write(file.path()));

  Result text = RunCli(file.path(), "gpu", {}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\n    1  4.00 KiB  4.00 KiB     1        0  4.00 KiB       0 B\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n    2    1000 B    1000 B     1        1    1000 B  4.00 KiB\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n 3..4    1000 B    1000 B     1        1    1000 B    1000 B\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(A..B: each of those frames alike"), std::string::npos) << text.out;
  Result j = RunCli(file.path(), "gpu", {}, true);
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(j.Json()["frames"].size(), 4u);
}

// Every texture of a stripped game comes through one upload function: the
// GPU report's site and object rows name the callers that tell them apart.
TEST(ReportLookAlikes, GpuRowsMadeThroughOneUploadFunctionNameTheirCallers) {
  TestCapture tc = GameCapture(/*ended=*/false);
  tc.Stack(3, {report_test::SpawnDamageLabel(), report_test::LoadLevel()});
  tc.Stack(4, {report_test::SpawnDamageLabel(), report_test::DrawHud()});
  wire::Packet packet;
  for (uint32_t stack : {3u, 4u}) AddGpuBuffer(packet, wire::GPU_STORAGE, stack, stack * 1000, 2, stack);
  tc.Add(packet);
  tc.End();
  tc.Recorder(true, 0);
  TempPath file("gpu_lookalikes");
  ASSERT_TRUE(tc.Write(file.path()));

  Result text = RunCli(file.path(), "gpu", {}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  for (const char* caller : {"report_test::LoadLevel()", "report_test::DrawHud()"}) {
    const std::string label = std::string("report_test::SpawnDamageLabel() <- ") + caller;
    size_t rows = 0;
    for (size_t at = text.out.find(label); at != std::string::npos; at = text.out.find(label, at + 1)) ++rows;
    EXPECT_EQ(rows, 3u) << label << " in the largest objects, the sites and the objects alive at the end\n" << text.out;
  }
}

}  // namespace
}  // namespace memframe::analysis
