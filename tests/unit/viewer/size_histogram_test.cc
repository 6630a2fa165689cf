#include "memframe/analysis/size_histogram.h"

#include <gtest/gtest.h>

namespace memframe::analysis {
namespace {

Event Alloc(uint32_t frame, uint64_t size) {
  Event e;
  e.packed_kind = static_cast<uint8_t>(EventKind::kAlloc);
  e.frame = frame;
  e.size = size;
  return e;
}

Event Free(uint32_t frame) {
  Event e;
  e.packed_kind = static_cast<uint8_t>(EventKind::kFree);
  e.frame = frame;
  e.size = 999;  // a sized delete: must not be counted as an allocation
  return e;
}

TEST(SizeBin, PowerOfTwoEdges) {
  EXPECT_EQ(SizeBin(0), 0);
  EXPECT_EQ(SizeBin(1), 1);
  EXPECT_EQ(SizeBin(2), 2);
  EXPECT_EQ(SizeBin(3), 2);
  EXPECT_EQ(SizeBin(31), 5);
  EXPECT_EQ(SizeBin(32), 6);
  EXPECT_EQ(SizeBin(48), 6);  // the demo game's DamageLabel
  EXPECT_EQ(SizeBin(63), 6);
  EXPECT_EQ(SizeBin(64), 7);
  EXPECT_EQ(SizeBin(UINT64_MAX), 64);
  for (int b = 1; b < kSizeBins; ++b) {
    EXPECT_EQ(SizeBin(SizeBinMin(b)), b);
    EXPECT_EQ(SizeBin(SizeBinMax(b)), b);
  }
}

TEST(SizeHistogramIndex, SumsFramesOfARange) {
  Stream stream;
  stream.events = {Alloc(0, 8), Alloc(1, 48), Alloc(1, 48), Free(1), Alloc(1, 41), Alloc(2, 4096), Alloc(3, 0)};
  auto index = SizeHistogramIndex::Build(stream);
  EXPECT_EQ(index.frame_count(), 4u);

  SizeHistogram one = index.Range({1, 1});
  EXPECT_EQ(one.allocations, 3u);
  EXPECT_EQ(one.bytes, 137u);
  EXPECT_EQ(one.bins[6].allocations, 3u);  // 48, 48 and 41 share [32, 64)
  EXPECT_EQ(one.first_bin, 6);
  EXPECT_EQ(one.last_bin, 6);

  SizeHistogram all = index.Range({0, 3});
  EXPECT_EQ(all.allocations, 6u);
  EXPECT_EQ(all.bins[0].allocations, 1u);  // malloc(0) is an allocation too
  EXPECT_EQ(all.bins[4].allocations, 1u);
  EXPECT_EQ(all.bins[13].bytes, 4096u);
  EXPECT_EQ(all.first_bin, 0);
  EXPECT_EQ(all.last_bin, 13);
}

// The histogram of some sites only (the module classes a view keeps).
TEST(SizeHistogramIndex, OnlyTheStacksKept) {
  Stream stream;
  Event a = Alloc(1, 48), b = Alloc(1, 4096), c = Alloc(2, 48);
  a.stack_id = 7;
  b.stack_id = 8;
  c.stack_id = 7;
  stream.events = {a, b, c};
  int asked = 0;
  auto index = SizeHistogramIndex::Build(stream, [&](uint32_t stack_id) {
    ++asked;
    return stack_id == 7;
  });
  EXPECT_EQ(asked, 2);  // once per stack
  SizeHistogram h = index.Range({0, 5});
  EXPECT_EQ(h.allocations, 2u);
  EXPECT_EQ(h.bytes, 96u);
  EXPECT_EQ(h.bins[6].allocations, 2u);
  EXPECT_EQ(h.bins[13].allocations, 0u);
}

TEST(SizeHistogramIndex, FramesOutOfOrderAndRangesOutside) {
  Stream stream;
  // Threads straddling a frame boundary: frame 2 before frame 1.
  stream.events = {Alloc(2, 100), Alloc(1, 10), Alloc(2, 100)};
  auto index = SizeHistogramIndex::Build(stream);
  EXPECT_EQ(index.Range({2, 2}).allocations, 2u);
  EXPECT_EQ(index.Range({1, 1}).allocations, 1u);
  EXPECT_EQ(index.Range({0, 0}).allocations, 0u);
  EXPECT_EQ(index.Range({0, 0}).last_bin, -1);
  EXPECT_EQ(index.Range({1, 1000}).allocations, 3u);  // clipped to the last frame
  EXPECT_EQ(index.Range({50, 60}).allocations, 0u);
  EXPECT_EQ(SizeHistogramIndex::Build(Stream{}).Range({0, 10}).allocations, 0u);
}

}  // namespace
}  // namespace memframe::analysis
