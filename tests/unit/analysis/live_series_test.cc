// The live-memory series on streams built event by event: per frame and per
// group, live heap bytes, mapped bytes, allocations and frees, each figure
// known exactly.
#include "memframe/analysis/live_series.h"

#include <gtest/gtest.h>

#include "memframe/analysis/heap_analysis.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::MakeStream;
using testing::Map;
using testing::TestEvent;
using testing::Unmap;

// Stacks 1 and 2 are the game's, 3 the driver's, every other one (0: no
// stack) the system's.
ModuleClass ClassOf(uint32_t stack_id) {
  return stack_id == 1 || stack_id == 2 ? ModuleClass::kGame
         : stack_id == 3                ? ModuleClass::kDriver
                                        : ModuleClass::kSystem;
}

LiveFigures Figures(uint64_t live, uint64_t mapped, uint64_t allocations, uint64_t frees, uint64_t bytes_allocated,
                    uint64_t bytes_freed) {
  return {live, mapped, allocations, frees, bytes_allocated, bytes_freed};
}

constexpr size_t kGame = static_cast<size_t>(ModuleClass::kGame);
constexpr size_t kDriver = static_cast<size_t>(ModuleClass::kDriver);
constexpr size_t kSystem = static_cast<size_t>(ModuleClass::kSystem);
constexpr size_t kEngine = static_cast<size_t>(ModuleClass::kEngine);

// Frame 0: the game allocates 100 B and 50 B, the driver 300 B and maps
// 64 KiB; the game frees its 100 B. Frame 1: the driver frees its 300 B;
// the game maps 8 KiB; the system allocates 20 B. Frame 2 has no row (only
// an UNMAP and a MAP): the driver's mapping loses 4 KiB from its middle and
// the system maps 4 KiB; both count in frame 3's row. Frame 3: the game
// allocates 10 B at the address of its live 50 B block, whose free was
// lost (the 50 B count freed here, as in the frame table); a FREE of an
// unknown block changes nothing; a driver mapping of 4 KiB replaces the
// first half of the game's 8 KiB one (MAP_FIXED).
Stream SeriesStream() {
  return MakeStream({
      Alloc(1, 0, 0x1000, 100, 1), Alloc(2, 0, 0x2000, 50, 2), Alloc(3, 0, 0x3000, 300, 3),
      Map(4, 0, 0x100000, 64 << 10, 3), Free(5, 0, 0x1000), FrameEnd(6, 0),
      Free(7, 1, 0x3000), Map(8, 1, 0x200000, 8 << 10, 1), Alloc(9, 1, 0x4000, 20, 0), FrameEnd(10, 1),
      Unmap(11, 2, 0x104000, 4 << 10), Map(12, 2, 0x300000, 4 << 10, 7),
      Alloc(13, 3, 0x2000, 10, 1), Free(14, 3, 0x9999), Map(15, 3, 0x200000, 4 << 10, 3), FrameEnd(16, 3),
  });
}

TEST(LiveSeries, FiguresPerFrameAndClass) {
  Stream s = SeriesStream();
  HeapAnalysis heap = AnalyzeHeap(s);
  LiveSeries series = ComputeClassSeries(s, heap.frames, ClassOf);
  ASSERT_EQ(series.groups, static_cast<size_t>(kModuleClassCount));
  ASSERT_EQ(series.frames, std::vector<uint64_t>({0, 1, 3}));

  EXPECT_EQ(series.At(0, kGame), Figures(50, 0, 2, 1, 150, 100));
  EXPECT_EQ(series.At(0, kDriver), Figures(300, 64 << 10, 1, 0, 300, 0));
  EXPECT_EQ(series.At(0, kSystem), Figures(0, 0, 0, 0, 0, 0));

  EXPECT_EQ(series.At(1, kGame), Figures(50, 8 << 10, 0, 0, 0, 0));
  EXPECT_EQ(series.At(1, kDriver), Figures(0, 64 << 10, 0, 1, 0, 300));
  EXPECT_EQ(series.At(1, kSystem), Figures(20, 0, 1, 0, 20, 0));

  // Frame 2's mapping changes show in frame 3's row.
  EXPECT_EQ(series.At(2, kGame), Figures(10, 4 << 10, 1, 1, 10, 50));
  EXPECT_EQ(series.At(2, kDriver), Figures(0, (64 - 4 + 4) << 10, 0, 0, 0, 0));
  EXPECT_EQ(series.At(2, kSystem), Figures(20, 4 << 10, 0, 0, 0, 0));
  for (size_t row = 0; row < series.rows(); ++row) EXPECT_EQ(series.At(row, kEngine), LiveFigures{});
  EXPECT_FALSE(series.Present(kEngine));
  EXPECT_TRUE(series.Present(kSystem));
}

TEST(LiveSeries, ClassesAddUpToTheFrameTable) {
  Stream s = SeriesStream();
  HeapAnalysis heap = AnalyzeHeap(s);
  LiveSeries series = ComputeClassSeries(s, heap.frames, ClassOf);
  ASSERT_EQ(series.rows(), heap.frames.frames.size());
  for (size_t row = 0; row < series.rows(); ++row) {
    const FrameStats& f = heap.frames.frames[row];
    LiveFigures all = series.Sum(row, [](size_t) { return true; });
    EXPECT_EQ(all.live_bytes, f.live_bytes) << "frame " << f.frame;
    EXPECT_EQ(all.allocations, f.allocations) << "frame " << f.frame;
    EXPECT_EQ(all.frees, f.frees) << "frame " << f.frame;
    EXPECT_EQ(all.bytes_allocated, f.bytes_allocated) << "frame " << f.frame;
    EXPECT_EQ(all.bytes_freed, f.bytes_freed) << "frame " << f.frame;
  }
  LiveFigures game_and_driver = series.Sum(0, [](size_t g) { return g == kGame || g == kDriver; });
  EXPECT_EQ(game_and_driver.live_bytes, 350u);
}

TEST(LiveSeries, AnyGroupingOfSitesAndEventsPastTheLastRow) {
  // Two groups: stack 2 (a selected site) and the rest. The mapping after
  // the last frame's row changes no row.
  Stream s = MakeStream({Alloc(1, 0, 0x1000, 8, 2), Alloc(2, 0, 0x2000, 16, 5), FrameEnd(3, 0),
                         Map(4, 1, 0x100000, 4096, 2)});
  HeapAnalysis heap = AnalyzeHeap(s);
  int asked = 0;
  LiveSeries series = ComputeLiveSeries(s, heap.frames, 2, [&](uint32_t stack) {
    ++asked;
    return stack == 2 ? size_t{0} : size_t{7};  // past the last group: the last group
  });
  ASSERT_EQ(series.rows(), 1u);
  EXPECT_EQ(series.At(0, 0), Figures(8, 0, 1, 0, 8, 0));
  EXPECT_EQ(series.At(0, 1), Figures(16, 0, 1, 0, 16, 0));
  EXPECT_EQ(asked, 2);  // once per stack id
}

TEST(LiveSeries, EmptyStream) {
  Stream s = MakeStream({});
  HeapAnalysis heap = AnalyzeHeap(s);
  LiveSeries series = ComputeClassSeries(s, heap.frames, ClassOf);
  EXPECT_EQ(series.rows(), 0u);
  EXPECT_FALSE(series.Present(kGame));
}

}  // namespace
}  // namespace memframe::analysis
