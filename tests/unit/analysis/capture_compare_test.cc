// What --fail-on-regression calls a regression, on comparisons made by
// hand; how phases pair; and `memframe compare` (RunCompare) on two small
// captures whose every figure is known.
#include <gtest/gtest.h>

#include <sstream>

#include "memframe/analysis/capture_compare.h"
#include "memframe/report/compare.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;

CaptureComparison Steady(uint64_t base_allocations, uint64_t next_allocations) {
  CaptureComparison c;
  c.base_steady_frames = 100;
  c.next_steady_frames = 50;  // per frame: NEW's figures count double
  c.base_total = {base_allocations, 1000};
  c.next_total = {next_allocations, 500};
  return c;
}

TEST(CaptureCompare, TotalsAreComparedPerSteadyFrame) {
  EXPECT_TRUE(FindRegressions(Steady(100, 55), 10).empty());  // 1.0 -> 1.1 per frame: 10%, not more
  const std::vector<std::string> grown = FindRegressions(Steady(100, 56), 10);
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_EQ(grown[0], "steady allocations per frame grew 12%");
}

TEST(CaptureCompare, ANewGameSiteIsARegressionAndAGoneOneIsNot) {
  CaptureComparison c = Steady(100, 50);
  SiteComparison added;
  added.change = SiteComparison::Change::kNew;
  added.name = "EmitParticleTrail(int)";
  added.module_class = ModuleClass::kGame;
  added.next = {1, 72};
  SiteComparison driver = added;
  driver.module_class = ModuleClass::kDriver;
  driver.name = "swrast_dri.so";
  SiteComparison gone = added;
  gone.change = SiteComparison::Change::kGone;
  gone.base = {10, 100};
  gone.next = {};
  c.sites = {added, driver, gone};
  EXPECT_EQ(FindRegressions(c, 1000), (std::vector<std::string>{"new game site EmitParticleTrail(int)"}));
}

TEST(CaptureCompare, LeakGrowthCountsBetweenTwoExits) {
  CaptureComparison c = Steady(100, 50);
  c.base_leaked_bytes = 0;
  c.next_leaked_bytes = 1;
  c.leaks_compared = true;
  EXPECT_EQ(FindRegressions(c, 50), (std::vector<std::string>{"leaked bytes grew from 0"}));
  c.leaks_compared = false;  // a side that did not exit: its live blocks are no leaks
  EXPECT_TRUE(FindRegressions(c, 50).empty());
}

Phase PhaseOf(PhaseKind kind, uint64_t from, uint64_t to) {
  Phase p;
  p.kind = kind;
  p.frames = {from, to};
  return p;
}

std::vector<std::string> Rows(const std::vector<PhaseComparison>& rows) {
  std::vector<std::string> out;
  for (const PhaseComparison& r : rows) {
    out.push_back(PhaseLabel(r.kind, r.ordinal) + ":" + (r.base ? std::to_string(r.base->frames.from) : "-") + "/" +
                  (r.next ? std::to_string(r.next->frames.from) : "-"));
  }
  return out;
}

// BASE loads twice, NEW once: the second load and the steady play after it
// are BASE's alone, and the teardowns still pair.
TEST(CaptureCompare, PhasesPairByKindAndOrdinal) {
  using K = PhaseKind;
  const std::vector<Phase> base = {PhaseOf(K::kStartup, 0, 0), PhaseOf(K::kSteady, 1, 9),  PhaseOf(K::kLoad, 10, 10),
                                   PhaseOf(K::kSteady, 11, 19), PhaseOf(K::kLoad, 20, 20), PhaseOf(K::kSteady, 21, 29),
                                   PhaseOf(K::kTeardown, 30, 30)};
  const std::vector<Phase> next = {PhaseOf(K::kStartup, 0, 0), PhaseOf(K::kSteady, 1, 4), PhaseOf(K::kLoad, 5, 5),
                                   PhaseOf(K::kSteady, 6, 40), PhaseOf(K::kTeardown, 41, 41)};
  EXPECT_EQ(Rows(PairPhases(base, next)),
            (std::vector<std::string>{"start-up 1:0/0", "steady 1:1/1", "load 1:10/5", "steady 2:11/6", "load 2:20/-",
                                      "steady 3:21/-", "teardown 1:30/41"}));
  // The other way round, NEW's own phases come after the phase NEW has before them.
  EXPECT_EQ(Rows(PairPhases(next, base)),
            (std::vector<std::string>{"start-up 1:0/0", "steady 1:1/1", "load 1:5/10", "steady 2:6/11", "load 2:-/20",
                                      "steady 3:-/21", "teardown 1:41/30"}));
}

// Frames 0..10 of a game that presents; in each, every stack of `per_frame`
// (at a return address of its own, in no module) allocates its bytes and
// frees them in the next frame. `leaked` bytes (if any) at stack 99 stay. `detached`: the recording ended at a detach (the process
// ran on), else the program exited.
TestCapture CompareCapture(const std::vector<std::pair<uint32_t, uint64_t>>& per_frame, uint64_t leaked, bool detached) {
  TestCapture tc;
  tc.Marker(1, "glXSwapBuffers");
  tc.Thread(42, "main");
  for (const auto& [stack, bytes] : per_frame) tc.Stack(stack, {0x7000 + 0x10 * stack});
  tc.Stack(99, {0x7000 + 0x10 * 99});
  std::vector<testing::TestEvent> events;
  uint64_t t = 2000;
  if (leaked) events.push_back(Alloc(t++, 0, 0x900000, leaked, 99));
  for (uint64_t f = 0; f <= 10; ++f) {
    for (size_t i = 0; i < per_frame.size(); ++i) {
      const uint64_t address = 0x100000 * (f % 2 + 1) + 0x1000 * i;
      if (f > 0) events.push_back(Free(t++, f, 0x100000 * ((f - 1) % 2 + 1) + 0x1000 * i));
      events.push_back(Alloc(t++, f, address, per_frame[i].second, per_frame[i].first));
    }
    events.push_back(FrameEnd(t++, f));
  }
  for (size_t i = 0; i < per_frame.size(); ++i) events.push_back(Free(t++, 11, 0x100000 * (10 % 2 + 1) + 0x1000 * i));
  tc.Batch(42, events);
  if (detached) {
    wire::Packet p;
    p.mutable_end()->set_reason("detach");
    tc.Add(p);
  } else {
    tc.End();
  }
  tc.Recorder(true, 0);
  return tc;
}

struct Compared {
  int code = 0;
  std::string out;
};

Compared RunCompared(const TestCapture& base, const TestCapture& next, bool all, bool json = false) {
  TempPath base_file("compare_base"), next_file("compare_new");
  EXPECT_TRUE(base.Write(base_file.path()));
  EXPECT_TRUE(next.Write(next_file.path()));
  CompareRequest request{base_file.path(), next_file.path(), json, all, 10.0};
  std::ostringstream out, err;
  Compared r;
  r.code = RunCompare(request, out, err);
  r.out = out.str();
  EXPECT_TRUE(r.code == 0 || r.code == 1) << err.str();
  return r;
}

// Blocks live when memframe detached are no leaks: 64 B leaked by BASE and
// 6,400 B live at NEW's detach are no leak regression, and the text says why.
TEST(CaptureCompare, LiveAtADetachIsNoLeakRegression) {
  const Compared r = RunCompared(CompareCapture({{1, 48}}, 64, false), CompareCapture({{1, 48}}, 6400, true), false);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("leaked bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  live at end                     64 B  6.25 KiB  not compared\n"
                       "  Leaks are not compared: NEW ran on after memframe detached, so the blocks live at its end are "
                       "no leaks; only two runs that exited compare leaks.\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nLeaks added: not compared (above)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Regressions past 10%: none"), std::string::npos) << r.out;
  // Two runs that exited compare their leaks.
  const Compared exited = RunCompared(CompareCapture({{1, 48}}, 64, false), CompareCapture({{1, 48}}, 6400, false), false);
  EXPECT_EQ(exited.code, 1) << exited.out;
  EXPECT_NE(exited.out.find("  leaked bytes grew 9900%\n"), std::string::npos) << exited.out;
}

// Per-frame figures go through the shared formatter: bytes in KiB, counts
// with three significant digits, never a raw float.
TEST(CaptureCompare, FiguresAreFormattedAsTheReportsFormatThem) {
  const Compared r = RunCompared(CompareCapture({{1, 1536}}, 0, false), CompareCapture({{1, 3072}}, 0, false), false);
  EXPECT_NE(r.out.find("  bytes per steady frame        1.50 KiB  3.00 KiB   +100%\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  changed  engine         1.00  1.00     +0    1.50 KiB  3.00 KiB  +1.50 KiB  -         0x7010\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("1536"), std::string::npos) << r.out;
}

// Five stacks new in NEW, each allocating 100 B a frame: one row with the
// count, or each with --all.
TEST(CaptureCompare, RowsWithTheSameFiguresFoldIntoOne) {
  const std::vector<std::pair<uint32_t, uint64_t>> base = {{1, 48}};
  const std::vector<std::pair<uint32_t, uint64_t>> next = {{1, 48}, {10, 100}, {11, 100}, {12, 100}, {13, 100}, {14, 100}};
  const Compared folded = RunCompared(CompareCapture(base, 0, false), CompareCapture(next, 0, false), false);
  EXPECT_NE(folded.out.find(" (and 4 more sites alike)\n"), std::string::npos) << folded.out;
  EXPECT_NE(folded.out.find("  (4 sites folded into the rows alike; --all lists each)\n"), std::string::npos) << folded.out;
  size_t rows = 0;
  for (size_t at = 0; (at = folded.out.find("\n  new ", at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, 1u) << folded.out;
  const Compared all = RunCompared(CompareCapture(base, 0, false), CompareCapture(next, 0, false), true);
  rows = 0;
  for (size_t at = 0; (at = all.out.find("\n  new ", at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, 5u) << all.out;
  EXPECT_EQ(all.out.find("alike"), std::string::npos) << all.out;
}

}  // namespace
}  // namespace memframe::analysis
