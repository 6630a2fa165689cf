// Frames, live set, leaks and anomalies, on streams built event by event.
#include "memframe/analysis/heap_analysis.h"

#include <gtest/gtest.h>

#include "memframe/analysis/phases.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::MakeStream;
using testing::TestEvent;

TEST(HeapAnalysis, PerFrameCountsBytesLiveAndPeak) {
  Stream s = MakeStream({
      // frame 0: two allocations, one freed
      Alloc(1, 0, 0xa0, 100, 1, 5), Alloc(2, 0, 0xb0, 50, 2, 7), Free(3, 0, 0xa0, 2), FrameEnd(4, 0),
      // frame 1: a realloc of 0xb0 -> 0xc0 (free + alloc), a new block
      Free(5, 1, 0xb0, 1, wire::kFlagRealloc), Alloc(6, 1, 0xc0, 80, 2, 9, wire::kFlagRealloc),
      Alloc(7, 1, 0xd0, 30, 1, 4), FrameEnd(8, 1),
      // frame 2: only a free; the capture ends before FRAME_END
      Free(9, 2, 0xd0, 3),
  });
  HeapAnalysis h = AnalyzeHeap(s);
  const FrameTable& t = h.frames;
  EXPECT_EQ(t.frames_rendered, 2u);
  EXPECT_EQ(t.frame_source, "glfwSwapBuffers");
  EXPECT_EQ(t.last_complete_frame, 1u);
  ASSERT_EQ(t.frames.size(), 3u);

  const FrameStats& f0 = t.frames[0];
  EXPECT_EQ(f0.allocations, 2u);
  EXPECT_EQ(f0.frees, 1u);
  EXPECT_EQ(f0.bytes_allocated, 150u);
  EXPECT_EQ(f0.bytes_freed, 100u);
  EXPECT_EQ(f0.live_bytes, 50u);
  EXPECT_EQ(f0.peak_live_bytes, 150u);
  EXPECT_EQ(f0.alloc_time_ns, 14u);  // ticks are ns: no calibration pairs
  EXPECT_EQ(f0.slowest_alloc_ns, 7u);
  EXPECT_TRUE(f0.ended);

  const FrameStats& f1 = t.frames[1];
  EXPECT_EQ(f1.allocations, 2u);
  EXPECT_EQ(f1.frees, 1u);
  EXPECT_EQ(f1.bytes_allocated, 110u);
  EXPECT_EQ(f1.bytes_freed, 50u);
  EXPECT_EQ(f1.live_bytes, 110u);
  EXPECT_EQ(f1.peak_live_bytes, 110u);
  EXPECT_EQ(f1.alloc_time_ns, 14u);
  EXPECT_EQ(f1.slowest_alloc_ns, 9u);

  const FrameStats& f2 = t.frames[2];
  EXPECT_EQ(f2.frees, 1u);
  EXPECT_EQ(f2.live_bytes, 80u);
  EXPECT_EQ(f2.peak_live_bytes, 110u);  // the live total it started with
  EXPECT_FALSE(f2.ended);

  EXPECT_EQ(h.allocations, 4u);
  EXPECT_EQ(h.frees, 3u);
  EXPECT_EQ(h.bytes_allocated, 260u);
  EXPECT_EQ(h.bytes_freed, 180u);
  EXPECT_EQ(h.peak_live_bytes, 150u);
  EXPECT_EQ(h.peak_live_frame, 0u);
  EXPECT_EQ(h.leaks.total_blocks, 1u);
  EXPECT_EQ(h.leaks.total_bytes, 80u);
}

TEST(HeapAnalysis, DurationsUseTheClockRate) {
  Stream s = MakeStream({Alloc(1000, 0, 0xa0, 8, 1, 300), Free(2000, 0, 0xa0, 31)});
  s.clock.AddPair(0, 0);
  s.clock.AddPair(3000, 1000);  // 3 ticks per ns
  HeapAnalysis h = AnalyzeHeap(s);
  EXPECT_EQ(h.frames.frames[0].alloc_time_ns, 110u);  // 331 ticks
  EXPECT_EQ(h.frames.frames[0].slowest_alloc_ns, 100u);
}

TEST(HeapAnalysis, UnknownFreesAreCountedAndIgnored) {
  Stream s = MakeStream({Alloc(1, 0, 0xa0, 8, 1), Free(2, 0, 0xdead), Free(3, 0, 0xa0), Free(4, 0, 0xa0)});
  HeapAnalysis h = AnalyzeHeap(s);
  EXPECT_EQ(h.anomalies.unknown_frees, 2u);  // 0xdead, and the double free of 0xa0
  EXPECT_EQ(h.frees, 1u);
  EXPECT_EQ(h.frames.frames[0].bytes_freed, 8u);
  EXPECT_EQ(h.leaks.total_blocks, 0u);
}

TEST(HeapAnalysis, AllocOverALiveBlockFreesTheOldOne) {
  Stream s = MakeStream({Alloc(1, 0, 0xa0, 100, 1), Alloc(2, 1, 0xa0, 10, 2)});
  HeapAnalysis h = AnalyzeHeap(s);
  EXPECT_EQ(h.anomalies.allocs_over_live, 1u);
  EXPECT_EQ(h.frees, 1u);
  EXPECT_EQ(h.frames.frames[1].frees, 1u);
  EXPECT_EQ(h.frames.frames[1].bytes_freed, 100u);
  EXPECT_EQ(h.frames.frames[1].live_bytes, 10u);
  ASSERT_EQ(h.leaks.sites.size(), 1u);
  EXPECT_EQ(h.leaks.sites[0].stack_id, 2u);
  EXPECT_EQ(h.leaks.total_bytes, 10u);
}

TEST(HeapAnalysis, LeaksGroupByStackLargestFirst) {
  Stream s = MakeStream({Alloc(1, 0, 0x10, 8, 3), Alloc(2, 0, 0x20, 8, 3), Alloc(3, 0, 0x30, 100, 4),
                         Alloc(4, 0, 0x40, 5, 5), Free(5, 0, 0x40), Alloc(6, 0, 0x50, 16, 0)});
  LeakReport leaks = AnalyzeHeap(s).leaks;
  EXPECT_EQ(leaks.total_blocks, 4u);
  EXPECT_EQ(leaks.total_bytes, 132u);
  ASSERT_EQ(leaks.sites.size(), 3u);
  EXPECT_EQ(leaks.sites[0].stack_id, 4u);
  EXPECT_EQ(leaks.sites[0].blocks, 1u);
  EXPECT_EQ(leaks.sites[1].stack_id, 3u);
  EXPECT_EQ(leaks.sites[1].blocks, 2u);
  EXPECT_EQ(leaks.sites[1].bytes, 16u);
  EXPECT_EQ(leaks.sites[2].stack_id, 0u);
}

// What a stretch of the run left live at the end: the blocks it allocated.
TEST(HeapAnalysis, LeaksOfTheBlocksAFrameRangeAllocated) {
  Stream s = MakeStream({Alloc(1, 0, 0x10, 8, 3), FrameEnd(2, 0), Alloc(3, 1, 0x20, 100, 4), Alloc(4, 1, 0x30, 5, 3),
                         FrameEnd(5, 1), Alloc(6, 2, 0x40, 7, 4), Free(7, 2, 0x20), FrameEnd(8, 2)});
  const HeapAnalysis h = AnalyzeHeap(s);
  const LiveSet end = h.live_sets.AtPosition(s, s.events.size());
  const LeakReport one = CollectLeaks(end, {1, 1});
  EXPECT_EQ(one.total_blocks, 1u);  // frame 1's 100 B block was freed in frame 2
  EXPECT_EQ(one.total_bytes, 5u);
  ASSERT_EQ(one.sites.size(), 1u);
  EXPECT_EQ(one.sites[0].stack_id, 3u);
  const LeakReport later = CollectLeaks(end, {1, 2});
  EXPECT_EQ(later.total_bytes, 12u);
  EXPECT_EQ(later.sites.size(), 2u);
  const LeakReport all = CollectLeaks(end, {0, 2});
  EXPECT_EQ(all.total_bytes, h.leaks.total_bytes);
  EXPECT_EQ(all.total_blocks, h.leaks.total_blocks);
}

// Frames 0..frames-1, frame f making allocations(f) blocks of `size`
// bytes, each freed at once.
template <typename Count>
std::vector<TestEvent> FramesOfChurn(uint32_t frames, uint64_t size, Count allocations) {
  std::vector<TestEvent> events;
  uint64_t tick = 0;
  for (uint32_t frame = 0; frame < frames; ++frame) {
    for (int i = 0; i < allocations(frame); ++i) {
      events.push_back(Alloc(++tick, frame, 0x1000, size, 1));
      events.push_back(Free(++tick, frame, 0x1000));
    }
    events.push_back(FrameEnd(++tick, frame));
  }
  return events;
}

TEST(HeapAnalysis, SpikesStandOutFromSteadyFrames) {
  std::vector<TestEvent> events;
  uint64_t tick = 0, address = 0x1000;
  for (uint32_t frame = 0; frame < 12; ++frame) {
    const int allocations = frame == 7 ? 800 : 200;  // frame 7 spikes
    for (int i = 0; i < allocations; ++i) {
      events.push_back(Alloc(++tick, frame, address, 32, 1));
      events.push_back(Free(++tick, frame, address));
      address += 64;
    }
    events.push_back(FrameEnd(++tick, frame));
  }
  FrameTable t = AnalyzeHeap(MakeStream(events)).frames;
  // Frame 0 is start-up; frames 1..11 are the one steady phase.
  ASSERT_EQ(t.phases.size(), 2u);
  const Phase& steady = t.phases[1];
  EXPECT_EQ(steady.allocation_spike.median, 200u);
  EXPECT_EQ(steady.allocation_spike.mad, 0u);
  // The highest of 200 + 3 * max(0, 20, 1), Tukey's fence 200 + 3 * 0,
  // twice the median and 200 + kSpikeFloorAllocations.
  EXPECT_EQ(steady.allocation_spike.threshold, 400u);
  EXPECT_EQ(steady.bytes_spike.threshold, 6400u + kSpikeFloorBytes);  // the floor is the highest
  EXPECT_EQ(steady.spikes, 1u);
  for (const FrameStats& f : t.frames) EXPECT_EQ(f.spike, f.frame == 7) << "frame " << f.frame;
}

// A frame of a steady phase must exceed its phase's usual frame by
// kSpikeFloorAllocations to be a spike: 43 -> 110 allocations (a marble
// rolling in Enigma) is 2.5x, and no frame is late for it.
TEST(HeapAnalysis, AFewMoreAllocationsAreNoSpike) {
  const int floor = static_cast<int>(kSpikeFloorAllocations);
  FrameTable t = AnalyzeHeap(MakeStream(FramesOfChurn(40, 16, [&](uint32_t frame) {
                   return frame == 20 ? 43 + floor : frame == 10 ? 43 + floor + 1 : 43;
                 }))).frames;
  ASSERT_EQ(t.phases.size(), 2u);
  EXPECT_EQ(t.phases[1].allocation_spike.threshold, 43u + kSpikeFloorAllocations);
  for (const FrameStats& f : t.frames) EXPECT_EQ(f.spike, f.frame == 10) << "frame " << f.frame;
}

// Play whose frames swing widely with what is on screen (allocations
// between 300 and 900, spread evenly): Tukey's fence over its quartiles
// leaves the swing alone and takes a frame far beyond it.
TEST(HeapAnalysis, ASwingingPhaseSpikesOnlyBeyondItsSwing) {
  FrameTable t = AnalyzeHeap(MakeStream(FramesOfChurn(101, 16, [](uint32_t frame) {
                   return frame == 50 ? 3000 : 300 + static_cast<int>((frame * 37) % 61) * 10;
                 }))).frames;
  ASSERT_EQ(t.phases.size(), 2u);
  for (const FrameStats& f : t.frames) EXPECT_EQ(f.spike, f.frame == 50) << "frame " << f.frame;
}

// Play at 300 allocations a frame whose view turns for 20 frames at 750
// (over the phase's threshold of 600): a stretch, not 20 spikes, nor its
// first and last frame; a single frame at 750 among 300s is one.
TEST(HeapAnalysis, ABusierStretchIsNoRowOfSpikes) {
  FrameTable t = AnalyzeHeap(MakeStream(FramesOfChurn(201, 16, [](uint32_t frame) {
                   return (frame >= 100 && frame < 120) || frame == 50 ? 750 : 300;
                 }))).frames;
  ASSERT_EQ(t.phases.size(), 2u);
  EXPECT_EQ(t.phases[1].allocation_spike.threshold, 600u);
  for (const FrameStats& f : t.frames) EXPECT_EQ(f.spike, f.frame == 50) << "frame " << f.frame;
}

// 2,000 frames: 150 allocations each until frame 1,500, then 300 (a busier
// level), with real spikes at frames 300 and 1,700 (3x their neighbours).
// By the whole capture's median every frame of the busier level would
// spike; the busier level is a steady phase of its own, judged against its
// own frames, so frames 300 and 1,700 spike and no other does.
TEST(HeapAnalysis, SpikesAreJudgedAgainstTheirOwnPhase) {
  constexpr uint32_t kFrames = 2000;
  const std::vector<TestEvent> events = FramesOfChurn(kFrames, 32, [](uint32_t frame) {
    const int allocations = frame < 1500 ? 150 : 300;
    return frame == 300 || frame == 1700 ? 3 * allocations : allocations;
  });
  FrameTable t = AnalyzeHeap(MakeStream(events)).frames;
  ASSERT_EQ(t.frames.size(), kFrames);
  ASSERT_EQ(t.phases.size(), 3u);
  EXPECT_EQ(t.phases[1].frames, (FrameRange{1, 1499}));
  EXPECT_EQ(t.phases[2].frames, (FrameRange{1500, 1999}));
  EXPECT_EQ(t.phases[2].allocation_spike.threshold, 600u);  // twice the median of 300
  for (const FrameStats& f : t.frames) EXPECT_EQ(f.spike, f.frame == 300 || f.frame == 1700) << "frame " << f.frame;
}

// The timeline colours the metric on screen: a frame with the usual count
// of bigger blocks spikes in bytes only.
TEST(HeapAnalysis, SpikesSayWhichFigureSpiked) {
  std::vector<TestEvent> events;
  uint64_t tick = 0;
  for (uint32_t frame = 0; frame < 12; ++frame) {
    for (int i = 0; i < 10; ++i) {
      events.push_back(Alloc(++tick, frame, 0x1000, frame == 4 ? 16384 : 32, 1));
      events.push_back(Free(++tick, frame, 0x1000));
    }
    events.push_back(FrameEnd(++tick, frame));
  }
  FrameTable t = AnalyzeHeap(MakeStream(events)).frames;
  for (const FrameStats& f : t.frames) {
    EXPECT_FALSE(f.allocations_spike) << "frame " << f.frame;
    EXPECT_EQ(f.bytes_spike, f.frame == 4) << "frame " << f.frame;
    EXPECT_EQ(f.spike, f.frame == 4) << "frame " << f.frame;
  }
}

TEST(HeapAnalysis, TooFewFramesForSpikes) {
  FrameTable t = AnalyzeHeap(MakeStream({Alloc(1, 0, 0x10, 8, 1), FrameEnd(2, 0), Alloc(3, 1, 0x20, 800, 1),
                                         FrameEnd(4, 1)}))
                     .frames;
  for (const FrameStats& f : t.frames) EXPECT_FALSE(f.spike);
}

TEST(HeapAnalysis, EmptyStream) {
  HeapAnalysis h = AnalyzeHeap(Stream{});
  EXPECT_TRUE(h.frames.frames.empty());
  EXPECT_EQ(h.frames.frames_rendered, 0u);
  EXPECT_EQ(h.frames.frame_source, "");
  EXPECT_EQ(h.peak_live_bytes, 0u);
}

}  // namespace
}  // namespace memframe::analysis
