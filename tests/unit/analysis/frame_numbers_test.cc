// Frame numbers are 64-bit and need not start at 0 or follow each other: a
// capture whose frames start past 2^40 and jump by 10^9 and by 2^33 loads,
// every report gives the exact per-frame figures, and the per-frame tables
// hold one row per frame that occurs (not one per number up to the last).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/lifetimes.h"
#include "memframe/report/report.h"
#include "memframe/analysis/size_histogram.h"
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
using testing::TestEvent;

constexpr uint64_t kBase = (1ull << 40) + 7;
constexpr uint64_t kGiga = 1'000'000'000;
constexpr uint64_t kJump = 1ull << 33;  // too far for one batch's uint32 frame deltas
// The 12 frames of the capture: runs of consecutive numbers, gaps of 10^9
// and one of 2^33 + 10^9. Frames 0..10 end; frame 11 does not.
constexpr uint64_t kFrames[12] = {kBase,
                                  kBase + 1,
                                  kBase + 2,
                                  kBase + kGiga,
                                  kBase + kGiga + 1,
                                  kBase + 2 * kGiga,
                                  kBase + 2 * kGiga + 1,
                                  kBase + 2 * kGiga + 2,
                                  kBase + 2 * kGiga + 2 + kJump,
                                  kBase + 2 * kGiga + 3 + kJump,
                                  kBase + 3 * kGiga + 2 + kJump,
                                  kBase + 3 * kGiga + 3 + kJump};

// Thread 500 (main), every frame: stack 1 allocates and frees 48 B twice;
// frames 0 and 5: stack 2 allocates 100 B, never freed; then FRAME_END.
// Thread 501 (worker), at the start of frames 2 and 9: stack 3 allocates
// 16 B, never freed. Each thread's frames go in two batches, split at the
// 2^33 jump as the agent splits them.
TestCapture BigFramesCapture() {
  TestCapture tc;
  tc.Marker(1, "glfwSwapBuffers");
  tc.Thread(500, "main");
  tc.Thread(501, "worker");
  std::vector<TestEvent> main_events[2], worker_events[2];
  uint64_t t = 1000;
  for (int i = 0; i < 12; ++i) {
    const uint64_t f = kFrames[i];
    if (i == 2 || i == 9) worker_events[i < 8 ? 0 : 1].push_back(Alloc(++t, f, 0x700000 + i, 16, 3, 4));
    std::vector<TestEvent>& events = main_events[i < 8 ? 0 : 1];
    for (int k = 0; k < 2; ++k) {
      events.push_back(Alloc(++t, f, 0x100000, 48, 1, 20));
      events.push_back(Free(++t, f, 0x100000, 5));
    }
    if (i == 0 || i == 5) events.push_back(Alloc(++t, f, 0x900000 + i, 100, 2, 10));
    if (i < 11) events.push_back(FrameEnd(++t, f));
  }
  tc.Batch(500, main_events[0]);
  tc.Batch(501, worker_events[0]);
  tc.Batch(500, main_events[1]);
  tc.Batch(501, worker_events[1]);
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

using Result = testing::ReportResult;

class FrameNumbersTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(BigFramesCapture().Write(file_.path())); }

  Result Run(const std::string& report, std::vector<std::string> args, bool as_json) {
    return testing::RunReportCli(file_.path(), report, std::move(args), as_json);
  }
  Capture Load() {
    Capture c;
    std::string error;
    EXPECT_TRUE(LoadCapture(file_.path(), &c, &error)) << error;
    return c;
  }

  TempPath file_{"frame_numbers"};
};

// Expected per frame (index into kFrames).
uint64_t AllocationsOf(int i) { return 2 + (i == 0 || i == 5) + (i == 2 || i == 9); }
uint64_t LiveBytesAfter(int i) { return 100 + (i >= 2 ? 16 : 0) + (i >= 5 ? 100 : 0) + (i >= 9 ? 16 : 0); }

TEST_F(FrameNumbersTest, LoadsWithTheFrameNumbersAsRecorded) {
  Capture c = Load();
  EXPECT_EQ(c.damage, "");
  EXPECT_TRUE(c.complete());
  ASSERT_EQ(c.main.events.size(), 12u * 4 + 2 + 2 + 11);
  EXPECT_EQ(c.main.events[0].frame, kFrames[0]);
  EXPECT_EQ(c.main.events[c.main.events.size() - 1].frame, kFrames[11]);
}

TEST_F(FrameNumbersTest, TablesHoldOneRowPerFrameThatOccurs) {
  Capture c = Load();
  HeapAnalysis heap = AnalyzeHeap(c.main);
  const FrameTable& t = heap.frames;
  ASSERT_EQ(t.frames.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(t.frames[i].frame, kFrames[i]) << i;
    EXPECT_EQ(t.frames[i].allocations, AllocationsOf(i)) << i;
    EXPECT_EQ(t.frames[i].frees, 2u) << i;
    EXPECT_EQ(t.frames[i].live_bytes, LiveBytesAfter(i)) << i;
    EXPECT_EQ(t.frames[i].ended, i < 11) << i;
  }
  EXPECT_EQ(t.frames_rendered, 11u);
  EXPECT_EQ(t.last_complete_frame, kFrames[10]);
  EXPECT_EQ(t.All(), (FrameRange{kFrames[0], kFrames[11]}));
  EXPECT_EQ(t.Complete(), (FrameRange{kFrames[0], kFrames[10]}));
  EXPECT_EQ(t.CountIn({kFrames[2], kFrames[8]}), 7u);
  EXPECT_EQ(t.CountIn({kFrames[2] + 1, kFrames[3] - 1}), 0u);
  EXPECT_EQ(t.Find(kFrames[3] - 1), nullptr);
  ASSERT_NE(t.Find(kFrames[9]), nullptr);
  EXPECT_EQ(t.Find(kFrames[9])->allocations, 3u);

  // Memory follows the 12 frames, not the 2^43 numbers: the live-set index
  // keeps 12 frame entries and no checkpoint, the size histogram 12 frames.
  EXPECT_EQ(heap.live_sets.checkpoint_count(), 0u);
  EXPECT_LT(heap.live_sets.memory_bytes(), 1024u);
  EXPECT_EQ(SizeHistogramIndex::Build(c.main).frame_count(), 12u);
  const SiteHistory* churn = heap.sites.Find(1);
  ASSERT_NE(churn, nullptr);
  EXPECT_EQ(churn->frames.size(), 12u);

  // The live set at the end of a frame, of a number in a gap (the frame
  // before it) and of a number before the first frame.
  EXPECT_EQ(heap.live_sets.AtFrame(c.main, kFrames[4]).live_bytes(), LiveBytesAfter(4));
  EXPECT_EQ(heap.live_sets.AtFrame(c.main, kFrames[5] - 1).live_bytes(), LiveBytesAfter(4));
  EXPECT_EQ(heap.live_sets.AtFrame(c.main, kFrames[0] - 1).live_bytes(), 0u);
  EXPECT_EQ(heap.live_sets.AtFrame(c.main, UINT64_MAX).live_bytes(), LiveBytesAfter(11));

  LifetimeReport lifetimes = AnalyzeLifetimes(c.main, heap.frames.phases);
  EXPECT_TRUE(lifetimes.has_teardown);
  EXPECT_EQ(lifetimes.last_ended_frame, kFrames[10]);
  EXPECT_TRUE(lifetimes.boundary_frames.empty());
}

TEST_F(FrameNumbersTest, SummaryCountsTheFramesThatOccur) {
  Result r = Run("", {}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["frames"], 11);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["allocations"], 12 * 2 + 2 + 2);
  EXPECT_EQ(j["frees"], 24);
  EXPECT_EQ(j["bytes_allocated"], 24 * 48 + 200 + 32);
  // Frame 9 starts at 216 B, the worker adds 16, a 48 B block makes 280.
  EXPECT_EQ(j["peak_live_bytes"], 280);
  EXPECT_EQ(j["peak_live_frame"], kFrames[9]);
  EXPECT_EQ(j["leaks"], json({{"blocks", 4}, {"bytes", 232}, {"are_leaks", true}}));
  // Judged over steady play: the first frame is start-up, the rest one steady phase.
  ASSERT_EQ(j["phases"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["phase"], "steady 1");
  const json& hidden = j["phases"][0]["hidden_sites"];
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_EQ(hidden[0]["stack_id"], 1);
  EXPECT_EQ(hidden[0]["frames_with_allocations"], 10);
  EXPECT_EQ(hidden[0]["frames_in_range"], 10);

  Result text = Run("", {}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("Frames      11 rendered (glfwSwapBuffers), 2 threads"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Peak live   280 B in frame " + std::to_string(kFrames[9])), std::string::npos);
  EXPECT_NE(text.out.find("steady 1: frames " + std::to_string(kFrames[1]) + ".." + std::to_string(kFrames[10]) +
                          " (10 frames)"),
            std::string::npos)
      << text.out;
}

TEST_F(FrameNumbersTest, FramesReportHasOneRowPerFrame) {
  Result r = Run("frames", {}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json frames = r.Json()["frames"];
  ASSERT_EQ(frames.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(frames[i]["frame"], kFrames[i]) << i;
    EXPECT_EQ(frames[i]["allocations"], AllocationsOf(i)) << i;
    EXPECT_EQ(frames[i]["live_bytes"], LiveBytesAfter(i)) << i;
  }

  // --from / --to are frame numbers; only the frames that occur are rows.
  Result range = Run("frames", {"--from", std::to_string(kFrames[2] + 1), "--to", std::to_string(kFrames[7])}, true);
  ASSERT_EQ(range.code, 0) << range.err;
  json some = range.Json()["frames"];
  ASSERT_EQ(some.size(), 5u);
  EXPECT_EQ(some[0]["frame"], kFrames[3]);
  EXPECT_EQ(some[4]["frame"], kFrames[7]);

  Result text = Run("frames", {}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  // Two header lines, a blank line, the column titles, 12 rows (one class:
  // no rows under them).
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 4 + 12) << text.out;
  EXPECT_NE(text.out.find("11 frames rendered (glfwSwapBuffers)"), std::string::npos);
  EXPECT_NE(text.out.find(std::to_string(kFrames[11])), std::string::npos);
  EXPECT_NE(text.out.find("(not ended)"), std::string::npos);
}

TEST_F(FrameNumbersTest, HiddenSitesCountFramesNotNumbers) {
  Result r = Run("hidden", {"--from", std::to_string(kFrames[3]), "--to", std::to_string(kFrames[9])}, true);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["range"], json({{"from", kFrames[3]}, {"to", kFrames[9]}}));
  ASSERT_EQ(j["phases"].size(), 1u);
  const json& hidden = j["phases"][0]["sites"];
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_EQ(hidden[0]["frames_with_allocations"], 7);
  EXPECT_EQ(hidden[0]["frames_in_range"], 7);

  Result text = Run("hidden", {}, false);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("(10 frames)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("in 10 of 10 frames"), std::string::npos) << text.out;

  Result sites = Run("sites", {"--from", std::to_string(kFrames[0])}, true);
  ASSERT_EQ(sites.code, 0) << sites.err;
  const json all = sites.Json();  // the loop must not walk a temporary's member
  ASSERT_EQ(all["phases"].size(), 1u);
  for (const json& s : all["phases"][0]["sites"]) EXPECT_EQ(s["frames_in_range"], 12);
}

TEST_F(FrameNumbersTest, OneFrameReportsTakeFrameNumbers) {
  Result histogram = Run("histogram", {"--frame", std::to_string(kFrames[5])}, true);
  ASSERT_EQ(histogram.code, 0) << histogram.err;
  EXPECT_EQ(histogram.Json()["allocations"], 3);
  EXPECT_EQ(histogram.Json()["bytes"], 196);

  // A number in a gap is no frame of the capture.
  Result gap = Run("histogram", {"--frame", std::to_string(kFrames[2] + 1)}, false);
  EXPECT_EQ(gap.code, 2);
  EXPECT_EQ(gap.err, "memframe: error: frame " + std::to_string(kFrames[2] + 1) +
                         " is not in the capture (12 frames between " + std::to_string(kFrames[0]) + " and " +
                         std::to_string(kFrames[11]) + ")\n");

  Result diff = Run("diff", {std::to_string(kFrames[4]), std::to_string(kFrames[9])}, true);
  ASSERT_EQ(diff.code, 0) << diff.err;
  json d = diff.Json();
  EXPECT_EQ(d["a"]["frame"], kFrames[4]);
  EXPECT_EQ(d["a"]["bytes"], LiveBytesAfter(4));
  EXPECT_EQ(d["b"]["bytes"], LiveBytesAfter(9));
  EXPECT_EQ(d["delta_bytes"], 116);

  // The fragmentation timeline samples the 12 frames (one replay, not one
  // step per number in the gaps).
  Result fragmentation = Run("fragmentation", {}, true);
  ASSERT_EQ(fragmentation.code, 0) << fragmentation.err;
  json samples = fragmentation.Json()["samples"];
  ASSERT_EQ(samples.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(samples[i]["frame"], kFrames[i]) << i;
    EXPECT_EQ(samples[i]["heap"]["live_bytes"], LiveBytesAfter(i)) << i;
  }
  Result one = Run("fragmentation", {"--frame", std::to_string(kFrames[8])}, true);
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.Json()["samples"][0]["heap"]["live_bytes"], LiveBytesAfter(8));
}

}  // namespace
}  // namespace memframe::analysis
