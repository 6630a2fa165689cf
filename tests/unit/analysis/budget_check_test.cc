// CheckBudget on a frame table made by hand: one check per steady phase on
// its mean frame (spikes included) and on its worst frame, named by the
// phase, never by frame numbers; loads and unloads counted; one phase alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "memframe/analysis/budget.h"
#include "memframe/report/check.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

// start-up 0, steady 1 = 1..14, load 1 = 15, steady 2 = 16..29, load 2 =
// 30, unload 1 = 31, teardown 32. Steady 1's frames allocate 100 blocks
// (1,000 bytes) in 1,001 + i ns, and every 7th one a transient more of
// 7,000 bytes: its median frame is 1,000 bytes, its mean 2,000.
constexpr uint64_t kSteady1MeanBytes = 2000;
constexpr uint64_t kSteady1Allocations = 14 * 100 + 2;  // 100.142... a frame, 100.2 rounded up
constexpr uint64_t kTransientFrameBytes = 8000;

Phase MakePhase(PhaseKind kind, uint32_t ordinal, uint64_t from, uint64_t to, uint64_t live_after = 0) {
  Phase p;
  p.kind = kind;
  p.ordinal = ordinal;
  p.frames = {from, to};
  p.live_after = live_after;
  return p;
}

FrameTable MakeTable() {
  FrameTable t;
  for (uint64_t i = 0; i <= 32; ++i) {
    FrameStats f;
    f.frame = i;
    f.ended = i < 32;
    if (i >= 1 && i <= 14) {
      f.allocations = 100 + (i % 7 == 0 ? 1 : 0);
      f.bytes_allocated = 1000 + (i % 7 == 0 ? 7000 : 0);
      f.alloc_time_ns = 1000 + i;
    } else if (i >= 16 && i <= 29) {
      f.allocations = 10;
      f.bytes_allocated = 100;
      f.alloc_time_ns = 500;
    } else {
      f.allocations = 5000;
      f.bytes_allocated = 1 << 20;
    }
    t.frames.push_back(f);
  }
  t.frames_rendered = 32;
  t.last_complete_frame = 31;
  t.phases = {MakePhase(PhaseKind::kStartup, 1, 0, 0),         MakePhase(PhaseKind::kSteady, 1, 1, 14),
              MakePhase(PhaseKind::kLoad, 1, 15, 15, 3 << 20), MakePhase(PhaseKind::kSteady, 2, 16, 29),
              MakePhase(PhaseKind::kLoad, 2, 30, 30, 5 << 20), MakePhase(PhaseKind::kUnload, 1, 31, 31),
              MakePhase(PhaseKind::kTeardown, 1, 32, 32)};
  return t;
}

class BudgetCheckTest : public ::testing::Test {
 protected:
  BudgetReport Check(const std::string& budget_json, const Phase* only = nullptr) {
    Budget budget;
    std::string error;
    EXPECT_TRUE(ParseBudget(budget_json, &budget, &error)) << error;
    return CheckBudget(capture_, heap_, symbolizer_, budget, only);
  }

  static const BudgetCheck* Find(const BudgetReport& r, const std::string& name) {
    auto it = std::find_if(r.checks.begin(), r.checks.end(), [&](const BudgetCheck& c) { return c.name == name; });
    return it == r.checks.end() ? nullptr : &*it;
  }

  static std::vector<std::string> Names(const BudgetReport& r) {
    std::vector<std::string> names;
    for (const BudgetCheck& c : r.checks) names.push_back(c.name);
    return names;
  }

  void SetUp() override { heap_.frames = MakeTable(); }

  Capture capture_;
  HeapAnalysis heap_;
  Symbolizer symbolizer_{{}};
};

TEST_F(BudgetCheckTest, APerFrameBudgetIsCheckedOnEachSteadyPhasesMeanFrameSpikesIncluded) {
  // Steady 1's median frame (1,000 bytes) is within 1,999; its transients
  // every 7th frame bring the mean to 2,000, past it.
  BudgetReport r = Check(R"({"steady_frame": {"allocations": 100, "bytes": 1999}})");
  EXPECT_EQ(Names(r), (std::vector<std::string>{"steady 1: allocations a frame", "steady 1: bytes a frame",
                                                "steady 2: allocations a frame", "steady 2: bytes a frame",
                                                "leaked blocks (game)", "leaked bytes (game)", "mismatched frees"}));
  const BudgetCheck* bytes = Find(r, "steady 1: bytes a frame");
  ASSERT_NE(bytes, nullptr);
  EXPECT_FALSE(bytes->passed);
  EXPECT_EQ(bytes->actual, kSteady1MeanBytes * 14);
  EXPECT_EQ(bytes->per_frames, 14u);
  EXPECT_EQ(bytes->phase, "steady 1");
  EXPECT_EQ(bytes->frames, (FrameRange{1, 14}));
  const BudgetCheck* allocations = Find(r, "steady 1: allocations a frame");
  ASSERT_NE(allocations, nullptr);
  EXPECT_FALSE(allocations->passed);  // 100.14 a frame: a fraction over is over
  EXPECT_EQ(allocations->actual, kSteady1Allocations);
  EXPECT_TRUE(Find(r, "steady 2: bytes a frame")->passed);
  EXPECT_EQ(Find(r, "steady 2: bytes a frame")->actual, 14u * 100);
  EXPECT_EQ(r.broken(), 2u);

  // The mean exactly at the limit meets it; so does a limit whose product
  // with the 14 frames would wrap around 2^64 to 12.
  r = Check(R"({"steady_frame": {"bytes": 2000}})");
  EXPECT_TRUE(Find(r, "steady 1: bytes a frame")->passed);
  r = Check(R"({"steady_frame": {"bytes": 1317624576693539402}})");
  EXPECT_TRUE(Find(r, "steady 1: bytes a frame")->passed);

  // The table and the JUnit XML show the mean rounded up to a tenth, with the phase's frames.
  r = Check(R"({"steady_frame": {"allocations": 100}})");
  const std::string xml = BudgetJUnit(r, "c.mfc");
  EXPECT_NE(xml.find("<testcase classname=\"memframe.budget\" name=\"steady 1: allocations a frame\">\n"
                     "      <failure message=\"100.2 &gt; 100 (mean of frames 1..14)\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"memframe.budget\" name=\"steady 2: allocations a frame\"/>"),
            std::string::npos)
      << xml;
}

TEST_F(BudgetCheckTest, TheWorstFrameBudgetIsCheckedOnEachSteadyPhasesWorstFrame) {
  const BudgetReport r = Check(R"({"steady_worst_frame": {"bytes": 7999}})");
  const BudgetCheck* one = Find(r, "steady 1: worst frame bytes");
  ASSERT_NE(one, nullptr);
  EXPECT_FALSE(one->passed);
  EXPECT_EQ(one->actual, kTransientFrameBytes);
  EXPECT_EQ(one->per_frames, 1u);
  EXPECT_EQ(one->frames, (FrameRange{7, 7}));  // the first of the worst
  const BudgetCheck* two = Find(r, "steady 2: worst frame bytes");
  ASSERT_NE(two, nullptr);
  EXPECT_TRUE(two->passed);
  EXPECT_EQ(two->actual, 100u);
  EXPECT_EQ(r.broken(), 1u);
}

TEST_F(BudgetCheckTest, AllocatorTimeIsThePercentileOfEachSteadyPhase) {
  // Nearest rank over steady 1's 14 frames: the 14th, 1,014 ns at frame 14.
  const BudgetReport r = Check(R"({"allocator_time_p99_ns": 1013})");
  const BudgetCheck* one = Find(r, "steady 1: allocator time p99");
  ASSERT_NE(one, nullptr);
  EXPECT_FALSE(one->passed);
  EXPECT_EQ(one->actual, 1014u);
  EXPECT_EQ(one->frames, (FrameRange{14, 14}));
  EXPECT_TRUE(Find(r, "steady 2: allocator time p99")->passed);
}

TEST_F(BudgetCheckTest, LoadsAreNamedByThePhaseAndCounted) {
  BudgetReport r = Check(R"({"load_live_bytes": 4194304, "loads": 1, "unloads": 0})");
  EXPECT_EQ(Names(r),
            (std::vector<std::string>{"load 1: live bytes after", "load 2: live bytes after", "loads", "unloads",
                                      "leaked blocks (game)", "leaked bytes (game)", "mismatched frees"}));
  EXPECT_TRUE(Find(r, "load 1: live bytes after")->passed);
  EXPECT_EQ(Find(r, "load 1: live bytes after")->frames, (FrameRange{15, 15}));
  EXPECT_FALSE(Find(r, "load 2: live bytes after")->passed);
  EXPECT_EQ(Find(r, "loads")->actual, 2u);
  EXPECT_FALSE(Find(r, "loads")->passed);
  EXPECT_EQ(Find(r, "unloads")->actual, 1u);
  EXPECT_FALSE(Find(r, "unloads")->passed);
  r = Check(R"({"loads": 2, "unloads": 1})");
  EXPECT_TRUE(Find(r, "loads")->passed);
  EXPECT_TRUE(Find(r, "unloads")->passed);
}

TEST_F(BudgetCheckTest, OnePhaseAloneHasOnlyItsOwnChecks) {
  const std::string budget = R"({"steady_frame": {"bytes": 1999}, "load_live_bytes": 4194304, "loads": 1})";
  BudgetReport r = Check(budget, &heap_.frames.phases[3]);
  EXPECT_EQ(r.only_phase, "steady 2");
  EXPECT_EQ(Names(r), (std::vector<std::string>{"steady 2: bytes a frame"}));
  EXPECT_EQ(r.broken(), 0u);
  r = Check(budget, &heap_.frames.phases[4]);
  EXPECT_EQ(Names(r), (std::vector<std::string>{"load 2: live bytes after"}));
  EXPECT_EQ(r.broken(), 1u);
  r = Check(budget, &heap_.frames.phases[0]);  // start-up: nothing budgeted
  EXPECT_TRUE(r.checks.empty());
}

TEST_F(BudgetCheckTest, ASteadyBudgetWithoutSteadyPlayIsBroken) {
  heap_.frames.phases = {MakePhase(PhaseKind::kStartup, 1, 0, 31), MakePhase(PhaseKind::kTeardown, 1, 32, 32)};
  const BudgetReport r = Check(R"({"steady_worst_frame": {"bytes": 1}, "allocator_time_p99_ns": 1})");
  const BudgetCheck* bytes = Find(r, "steady: worst frame bytes");
  ASSERT_NE(bytes, nullptr);
  EXPECT_FALSE(bytes->passed);
  EXPECT_EQ(bytes->note, "no steady phase");
  ASSERT_NE(Find(r, "steady: allocator time p99"), nullptr);
  EXPECT_FALSE(Find(r, "steady: allocator time p99")->passed);
}

// GPU objects by hand: load 1 (frame 15) makes a 1 MiB texture, load 2
// (frame 30) a 2 MiB one; each frame of steady 2 makes a 100-byte buffer
// and deletes it (GPU churn: 100 bytes made a frame), steady 1 none.
void AddGpuEvents(Stream* stream) {
  using testing::GpuObjectEvent;
  stream->gpu_events.push_back(GpuObjectEvent(GpuOp::kStorage, GpuKind::kTexture, 1, 1 << 20, 15));
  for (uint64_t f = 16; f <= 29; ++f) {
    stream->gpu_events.push_back(GpuObjectEvent(GpuOp::kStorage, GpuKind::kBuffer, f, 100, f));
    stream->gpu_events.push_back(GpuObjectEvent(GpuOp::kDelete, GpuKind::kBuffer, f, 0, f));
  }
  stream->gpu_events.push_back(GpuObjectEvent(GpuOp::kStorage, GpuKind::kTexture, 2, 2 << 20, 30));
}

TEST_F(BudgetCheckTest, GpuBudgetsAreCheckedAfterEachLoadAndOnEachSteadyPhasesMeanFrame) {
  AddGpuEvents(&capture_.main);
  const BudgetReport r = Check(R"({"gpu": {"load_live_bytes": 3145727, "steady_frame_bytes": 99}})");
  EXPECT_EQ(Names(r), (std::vector<std::string>{"steady 1: GPU bytes made a frame", "load 1: GPU live bytes after",
                                                "steady 2: GPU bytes made a frame", "load 2: GPU live bytes after",
                                                "leaked blocks (game)", "leaked bytes (game)", "mismatched frees"}));
  const BudgetCheck* load1 = Find(r, "load 1: GPU live bytes after");
  EXPECT_TRUE(load1->passed);
  EXPECT_EQ(load1->actual, 1u << 20);
  EXPECT_EQ(load1->phase, "load 1");
  EXPECT_EQ(load1->frames, (FrameRange{15, 15}));
  const BudgetCheck* load2 = Find(r, "load 2: GPU live bytes after");
  EXPECT_FALSE(load2->passed);  // 3 MiB, one byte over
  EXPECT_EQ(load2->actual, 3u << 20);
  const BudgetCheck* steady1 = Find(r, "steady 1: GPU bytes made a frame");
  EXPECT_TRUE(steady1->passed);
  EXPECT_EQ(steady1->actual, 0u);
  const BudgetCheck* steady2 = Find(r, "steady 2: GPU bytes made a frame");
  EXPECT_FALSE(steady2->passed);
  EXPECT_EQ(steady2->actual, 14u * 100);
  EXPECT_EQ(steady2->per_frames, 14u);
  EXPECT_EQ(steady2->frames, (FrameRange{16, 29}));
  EXPECT_EQ(steady2->unit, "bytes");
  EXPECT_EQ(r.broken(), 2u);
  EXPECT_TRUE(Find(Check(R"({"gpu": {"steady_frame_bytes": 100}})"), "steady 2: GPU bytes made a frame")->passed);

  // One phase alone keeps its GPU check; no steady phase breaks the steady one.
  EXPECT_EQ(Names(Check(R"({"gpu": {"load_live_bytes": 1}})", &heap_.frames.phases[4])),
            (std::vector<std::string>{"load 2: GPU live bytes after"}));
  heap_.frames.phases = {MakePhase(PhaseKind::kStartup, 1, 0, 31), MakePhase(PhaseKind::kTeardown, 1, 32, 32)};
  const auto no_steady = Check(R"({"gpu": {"steady_frame_bytes": 1}})");
  const BudgetCheck* none = Find(no_steady, "steady: GPU bytes made a frame");
  ASSERT_NE(none, nullptr);
  EXPECT_FALSE(none->passed);
  EXPECT_EQ(none->note, "no steady phase");
}

TEST_F(BudgetCheckTest, AnUnknownGpuKeyIsAnError) {
  Budget budget;
  std::string error;
  EXPECT_FALSE(ParseBudget(R"({"gpu": {"load_bytes": 1}})", &budget, &error));
  EXPECT_EQ(error, "gpu.load_bytes: unknown key");
  EXPECT_FALSE(ParseBudget(R"({"gpu": {"steady_frame_bytes": -1}})", &budget, &error));
  EXPECT_EQ(error, "gpu.steady_frame_bytes: must be a whole number of at least 0");
}

}  // namespace
}  // namespace memframe::analysis
