// The one-pass summary (summary_load.h) against the whole load: on every
// shape of stream, `memframe report summary` (text and JSON) reads exactly
// the same either way, and the one pass is used where the events can be
// ordered as they come.
#include "memframe/analysis/summary_load.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "memframe/report/report.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

std::string Summary(const std::string& path, bool json, bool whole_load, int* code) {
  ReportRequest request{path, "summary", {}, json};
  request.whole_load = whole_load;
  std::ostringstream out, err;
  *code = RunReport(request, out, err);
  return out.str() + "\nstderr:\n" + err.str();
}

// Both loads print the same summary, text and JSON; returns whether the
// one pass did it.
bool ExpectSameSummaryBothWays(const TestCapture& tc) {
  TempPath file("summary_load");
  EXPECT_TRUE(tc.Write(file.path()));
  for (bool json : {false, true}) {
    int one_pass_code = 0, whole_code = 0;
    const std::string one_pass = Summary(file.path(), json, false, &one_pass_code);
    const std::string whole = Summary(file.path(), json, true, &whole_code);
    EXPECT_EQ(one_pass, whole) << (json ? "JSON" : "text");
    EXPECT_EQ(one_pass_code, whole_code);
  }
  Capture capture;
  HeapAnalysis heap;
  std::string error;
  bool streamed = false;
  EXPECT_TRUE(LoadSummary(file.path(), &capture, &heap, &error, {}, &streamed)) << error;
  if (streamed) {
    EXPECT_EQ(capture.main.events.size(), 0u);
  }
  return streamed;
}

// Two threads whose batches overlap in time; a block allocated on one is
// freed on the other, and one handoff is stamped in the wrong order (the
// merge repairs it, handoff_repair.h).
TestCapture TwoThreads(int rounds_of_slices) {
  TestCapture tc;
  tc.Marker(1, "glfwSwapBuffers");
  tc.Marker(2, "time slice");
  tc.Marker(3, "glXSwapBuffers");
  tc.Thread(500, "main");
  tc.Thread(501, "worker");
  uint64_t tick = 10000;
  uint64_t frame = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<TestEvent> main, worker;
    for (int i = 0; i < 30; ++i) {
      main.push_back(Alloc(tick + 2 * i, frame, 0x100000 + 64 * ((round * 30 + i) % 97), 48 + i % 3, 1 + i % 4));
      worker.push_back(Alloc(tick + 2 * i + 1, frame, 0x900000 + 64 * i, 32, 5 + i % 2));
      worker.push_back(Free(tick + 2 * i + 1, frame, 0x900000 + 64 * i));
      if (i % 7 == 3) main.push_back(Free(tick + 2 * i, frame, 0x100000 + 64 * ((round * 30 + i) % 97)));
    }
    // A block handed from main to the worker, the free stamped a tick
    // before the allocation.
    main.push_back(Alloc(tick + 70, frame, 0x500000 + round * 16, 200, 7));
    worker.push_back(Free(tick + 69, frame, 0x500000 + round * 16));
    worker.push_back(Alloc(tick + 75, frame, 0x500000 + round * 16, 100, 8));
    if (round < rounds_of_slices) {
      main.push_back(FrameEnd(tick + 80, frame, 2));  // slices do not advance the agent's count
    } else {
      if (round == rounds_of_slices) main.push_back(FrameEnd(tick + 79, frame, 3));
      main.push_back(FrameEnd(tick + 80, frame, 1));
      ++frame;
    }
    // The worker's batch of this round arrives before main's.
    tc.Batch(501, worker);
    tc.Batch(500, main);
    // Rounds 2^28 ticks apart: the merge (a margin of 2^33) lets events out
    // as the later rounds come.
    tick += uint64_t{1} << 28;
  }
  tc.Batch(500, {Alloc(tick, frame, 0x700000, 4096, 9)});  // a leak
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

TEST(SummaryLoad, TwoThreadsWithHandoffsInOnePass) { EXPECT_TRUE(ExpectSameSummaryBothWays(TwoThreads(0))); }

TEST(SummaryLoad, TimeSlicesThenTwoPresentEntryPointsInOnePass) {
  EXPECT_TRUE(ExpectSameSummaryBothWays(TwoThreads(5)));
}

TEST(SummaryLoad, OnlyTimeSlicesInOnePass) { EXPECT_TRUE(ExpectSameSummaryBothWays(TwoThreads(1000))); }

TEST(SummaryLoad, AThreadFirstSeenWithEventsOlderThanThoseLetOutIsLoadedWhole) {
  TestCapture tc;
  tc.Marker(1, "glfwSwapBuffers");
  tc.Batch(500, {Alloc(1000, 0, 0x1000, 10, 1), FrameEnd(1001, 0), Alloc(1002, 1, 0x2000, 10, 1)});
  const uint64_t later = uint64_t{1} << 34;  // past the margin events wait (2^33 ticks)
  tc.Batch(500, {Free(later, 1, 0x1000), FrameEnd(later + 1, 1)});
  // Thread 501's first events predate what thread 500 already let out (a
  // thread kept from its ring longer than the margin).
  tc.Batch(501, {Alloc(1001, 0, 0x3000, 10, 2), Free(1001, 0, 0x2000)});
  tc.End();
  tc.Recorder(true, 0);
  EXPECT_FALSE(ExpectSameSummaryBothWays(tc));
}

TEST(SummaryLoad, RecorderSnapshotsAreLoadedWhole) {
  TestCapture tc = TwoThreads(0);
  wire::Packet p;
  p.mutable_snapshot()->set_name("before boss");
  p.mutable_snapshot()->set_monotonic_ns(1002000);
  tc.Add(0, p);
  EXPECT_FALSE(ExpectSameSummaryBothWays(tc));
}

}  // namespace
}  // namespace memframe::analysis
