// memframe's own writer thread (wire::kWriterThreadName) is in the stream
// (it ends the time slices, so it has events and a ThreadInfo), but in no
// figure of the game's threads: the summary's count, the threads report,
// --thread, the Chrome JSON and Perfetto exports.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "load_test_capture.h"
#include "memframe/report/export.h"
#include "protos/perfetto/trace/trace.pb.h"
#include "report_run.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using nlohmann::json;
using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;

constexpr uint32_t kTimeSlice = 2;  // marker id of "time slice"

// Main (tid 42 = the pid) and a worker allocate; the writer (43) ends one
// time slice before the first present, as the agent's writer does. With
// `presents` false, main never presents and the writer's slices are the
// frames.
TestCapture WithWriter(bool presents) {
  TestCapture tc;
  tc.Marker(1, "glXSwapBuffers");
  tc.Marker(kTimeSlice, "time slice");
  tc.Thread(42, "game");
  tc.Thread(43, wire::kWriterThreadName);
  tc.Thread(44, "worker");
  tc.Batch(43, {FrameEnd(1500, 0, kTimeSlice)});
  if (presents) {
    tc.Batch(42, {Alloc(2000, 0, 0x1000, 100, 0), FrameEnd(3000, 0), Alloc(4000, 1, 0x2000, 50, 0),
                  FrameEnd(6000, 1)});
  } else {
    tc.Batch(42, {Alloc(2000, 0, 0x1000, 100, 0), Alloc(4000, 0, 0x2000, 50, 0)});
    tc.Batch(43, {FrameEnd(5000, 0, kTimeSlice)});
  }
  tc.Batch(44, {Alloc(5500, 1, 0x3000, 30, 0), Free(5600, 1, 0x3000)});
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

class MemframeThreadTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(WithWriter(true).Write(file_.path())); }
  testing::ReportResult Run(const std::string& report, std::vector<std::string> args, bool as_json = true) {
    return testing::RunReportCli(file_.path(), report, std::move(args), as_json);
  }
  TempPath file_{"memframe_thread"};
};

TEST_F(MemframeThreadTest, TheSummaryCountsTheGamesThreadsOnly) {
  auto r = Run("", {});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.Json()["threads"], 2);
  auto text = Run("", {}, false);
  EXPECT_NE(text.out.find("Frames      2 rendered (glXSwapBuffers), 2 threads\n"), std::string::npos) << text.out;
}

TEST_F(MemframeThreadTest, ThreadsAndTheThreadOptionNeverNameIt) {
  auto r = Run("threads", {});
  ASSERT_EQ(r.code, 0) << r.err;
  const json threads = r.Json()["threads"];
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0]["tid"], 42);
  EXPECT_EQ(threads[1]["tid"], 44);
  auto named = Run("sites", {"--thread", wire::kWriterThreadName});
  EXPECT_EQ(named.code, 2);
  EXPECT_EQ(named.err,
            "memframe: error: --thread memframe-writer: no thread has that name (threads: game 42, worker 44)\n");
  EXPECT_EQ(Run("sites", {"--thread", "43"}).code, 2);
}

std::vector<uint32_t> ChromeThreadNames(const json& trace) {
  std::vector<uint32_t> tids;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") tids.push_back(e["tid"]);
  return tids;
}

TEST(MemframeThread, ExportsHaveNoTrackOfIt) {
  const Capture capture = testing::LoadTestCapture(WithWriter(true), "memframe_thread_exports.mfc");
  const HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules);
  const json chrome = json::parse(ChromeTraceJson(capture, heap, symbolizer));
  EXPECT_EQ(ChromeThreadNames(chrome), (std::vector<uint32_t>{42, 44}));
  perfetto::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(PerfettoTrace(capture, heap, symbolizer)));
  std::vector<uint32_t> tracks;
  for (const auto& p : trace.packet())
    if (p.has_track_descriptor() && p.track_descriptor().has_thread())
      tracks.push_back(static_cast<uint32_t>(p.track_descriptor().thread().tid()));
  EXPECT_EQ(tracks, (std::vector<uint32_t>{42, 44}));
}

// Time slices are the frames of a game that never presents: they go on the
// main thread's track, not on the writer's, which has none.
TEST(MemframeThread, TimeSliceFramesGoOnTheMainThread) {
  const Capture capture = testing::LoadTestCapture(WithWriter(false), "memframe_thread_slices.mfc");
  const HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules);
  const json chrome = json::parse(ChromeTraceJson(capture, heap, symbolizer));
  size_t frames = 0;
  for (const json& e : chrome["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_EQ(e["tid"], 42) << e;
    frames += e["cat"] == "frame";
  }
  EXPECT_EQ(frames, 3u);  // two slices and the worker's frame after them
  EXPECT_EQ(ChromeThreadNames(chrome), (std::vector<uint32_t>{42, 44}));
}

}  // namespace
}  // namespace memframe::analysis
