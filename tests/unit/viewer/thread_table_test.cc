// The Threads tab's rows (thread_table.h) over analysis::ThreadHistory:
// counts over the range picked, frees and the bytes they released, and
// rates per frame over the judged frames only.
#include "thread_table.h"

#include <gtest/gtest.h>

#include "memframe/analysis/heap_analysis.h"
#include "test_capture.h"

namespace memframe::viewer {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::ToEvent;

// Frame 0 (start-up): main allocates five 1000-byte blocks that stay.
// Frames 1..5: main allocates 100 B and frees the block of the frame
// before (from frame 2 on); the worker allocates 30 B and frees it in the
// same frame. Every call takes 10 ticks (one tick is a nanosecond).
analysis::Stream TwoThreads() {
  analysis::Stream s;
  s.threads = {{10, "main"}, {11, "worker"}};
  uint64_t t = 1;
  for (uint64_t i = 0; i < 5; ++i) s.events.push_back(ToEvent(Alloc(++t, 0, 0x9000 + i * 0x1000, 1000, 1, 10), 0));
  s.events.push_back(ToEvent(FrameEnd(++t, 0), 0));
  for (uint64_t f = 1; f <= 5; ++f) {
    s.events.push_back(ToEvent(Alloc(++t, f, 0x1000 + f * 0x100, 100, 2, 10), 0));
    if (f > 1) s.events.push_back(ToEvent(Free(++t, f, 0x1000 + (f - 1) * 0x100, 10), 0));
    s.events.push_back(ToEvent(Alloc(++t, f, 0x5000, 30, 3, 10), 1));
    s.events.push_back(ToEvent(Free(++t, f, 0x5000, 10), 1));
    s.events.push_back(ToEvent(FrameEnd(++t, f), 0));
  }
  return s;
}

const ThreadRow& RowOf(const ThreadTable& table, uint32_t tid) {
  for (const ThreadRow& row : table.rows)
    if (row.range.tid == tid) return row;
  ADD_FAILURE() << "no row for tid " << tid;
  return table.rows.front();
}

TEST(ThreadTable, CountsOverTheRangeRatesOverTheJudgedFrames) {
  const analysis::Stream s = TwoThreads();
  const analysis::FrameTable frames = analysis::AnalyzeHeap(s).frames;
  const analysis::ThreadHistory history = analysis::RecordThreadHistory(s);
  // Frames 2..5 judged (frame 0 is start-up, frame 1 the first of play).
  analysis::JudgedFrames judged;
  judged.ranges = {{2, 5}};
  judged.count = 4;
  judged.steady_only = true;
  const ThreadTable table = BuildThreadTable(history, frames, {0, 5}, judged);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].range.tid, 10u);  // the most allocations first

  const ThreadRow& main = RowOf(table, 10);
  EXPECT_EQ(main.range.allocations, 10u);
  EXPECT_EQ(main.range.bytes, 5500u);
  EXPECT_EQ(main.range.frees, 4u);
  EXPECT_EQ(main.range.bytes_freed, 400u);
  EXPECT_EQ(main.range.frames_with_allocations, 6u);
  EXPECT_EQ(main.range.alloc_time_ns, 140u);
  // Start-up's five blocks would make it 2.5 allocations a frame over 0..5.
  EXPECT_DOUBLE_EQ(main.allocations_per_frame, 1.0);
  EXPECT_DOUBLE_EQ(main.frees_per_frame, 1.0);
  EXPECT_DOUBLE_EQ(main.bytes_per_frame, 100.0);

  const ThreadRow& worker = RowOf(table, 11);
  EXPECT_EQ(worker.range.allocations, 5u);
  EXPECT_EQ(worker.range.frees, 5u);
  EXPECT_EQ(worker.range.bytes_freed, 150u);
  EXPECT_DOUBLE_EQ(worker.frees_per_frame, 1.0);
  EXPECT_DOUBLE_EQ(worker.bytes_per_frame, 30.0);
  EXPECT_EQ(table.alloc_time_ns, 240u);
}

TEST(ThreadTable, ARangeCountsOnlyItsFrames) {
  const analysis::Stream s = TwoThreads();
  const analysis::FrameTable frames = analysis::AnalyzeHeap(s).frames;
  analysis::JudgedFrames judged;
  judged.ranges = {{3, 4}};
  judged.count = 2;
  const ThreadTable table = BuildThreadTable(analysis::RecordThreadHistory(s), frames, {3, 4}, judged);
  const ThreadRow& main = RowOf(table, 10);
  EXPECT_EQ(main.range.allocations, 2u);
  EXPECT_EQ(main.range.frees, 2u);
  EXPECT_EQ(main.range.bytes_freed, 200u);
  EXPECT_EQ(main.range.frames_with_allocations, 2u);
  // The whole capture, as `memframe report threads` counts it.
  const analysis::ThreadReport all = analysis::AnalyzeThreads(s, frames.frames.size());
  ASSERT_EQ(all.threads.size(), 2u);
  EXPECT_EQ(all.threads[0].allocations, 10u);
  EXPECT_EQ(all.threads[0].bytes_freed, 400u);
  EXPECT_EQ(all.threads[1].bytes_freed, 150u);
}

}  // namespace
}  // namespace memframe::viewer
