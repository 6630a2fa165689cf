// LiveSetIndex answers exactly what a replay from the first event answers,
// whichever checkpoint it starts from.
#include "memframe/analysis/live_set_index.h"

#include <gtest/gtest.h>

#include <map>

#include "memframe/analysis/heap_analysis.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::ToEvent;

// The definition, spelled out: every ALLOC and FREE of frames <= frame, in
// order (live_set_at.h).
std::map<uint64_t, LiveBlock> Replayed(const Stream& s, uint32_t frame, uint64_t limit = UINT64_MAX) {
  LiveSet live;
  LiveBlock ignored;
  uint64_t i = 0;
  for (const Event& e : s.events) {
    if (i++ >= limit) break;
    if (e.frame > frame) continue;
    if (e.kind() == EventKind::kAlloc) live.Alloc(e, &ignored);
    if (e.kind() == EventKind::kFree) live.Free(e.address, &ignored);
  }
  return {live.blocks().begin(), live.blocks().end()};
}

std::map<uint64_t, LiveBlock> Blocks(const LiveSet& live) { return {live.blocks().begin(), live.blocks().end()}; }

bool Same(const std::map<uint64_t, LiveBlock>& a, const std::map<uint64_t, LiveBlock>& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    const LiveBlock &x = ia->second, &y = ib->second;
    if (ia->first != ib->first || x.size != y.size || x.ticks != y.ticks || x.stack_id != y.stack_id ||
        x.frame != y.frame || x.family != y.family)
      return false;
  }
  return true;
}

// Two threads whose frames straddle (a worker still in frame f after the
// main thread began f + 1), addresses reused across frames, frees of
// unknown blocks and allocations over live ones.
Stream Straddling() {
  Stream s;
  uint64_t seed = 5, ticks = 0;
  auto next = [&] { return seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed; };
  for (uint32_t frame = 0; frame < 60; ++frame) {
    for (int i = 0; i < 50; ++i) {
      uint32_t f = frame > 0 && i < 5 ? frame - 1 : frame;  // stragglers of the previous frame
      uint64_t address = 0x1000 + (next() % 40) * 16;
      uint32_t family = static_cast<uint32_t>(next() % 3);
      testing::TestEvent t = next() % 2 ? testing::Alloc(++ticks, f, address, 1 + next() % 100,
                                                         static_cast<uint32_t>(next() % 9), 0, 0, family)
                                        : testing::Free(++ticks, f, address);
      s.events.push_back(ToEvent(t, static_cast<uint16_t>(i % 2)));
    }
  }
  return s;
}

TEST(LiveSetIndex, EveryFrameMatchesAFullReplay) {
  Stream s = Straddling();
  LiveSetIndex index = LiveSetIndex::Build(s, 64);
  EXPECT_GT(index.checkpoint_count(), 5u);
  for (uint32_t frame = 0; frame <= 61; ++frame)
    EXPECT_TRUE(Same(Blocks(index.AtFrame(s, frame)), Replayed(s, frame))) << "frame " << frame;
  for (uint64_t position : {0ull, 1ull, 64ull, 65ull, 1000ull, 2999ull, 3000ull})
    EXPECT_TRUE(Same(Blocks(index.AtPosition(s, position)), Replayed(s, UINT32_MAX, position))) << position;
}

TEST(LiveSetIndex, AnalyzeHeapBuildsItAndTheEndIsTheLeakSet) {
  Stream s = Straddling();
  HeapAnalysis heap = AnalyzeHeap(s);
  LiveSet end = heap.live_sets.AtFrame(s, UINT32_MAX);
  EXPECT_EQ(end.live_blocks(), heap.leaks.total_blocks);
  EXPECT_EQ(end.live_bytes(), heap.leaks.total_bytes);
  for (uint32_t frame : {0u, 17u, 59u})
    EXPECT_TRUE(Same(Blocks(heap.live_sets.AtFrame(s, frame)), Replayed(s, frame))) << frame;
}

TEST(LiveSetIndex, EmptyStreamHasAnEmptyLiveSet) {
  Stream s;
  LiveSetIndex index = LiveSetIndex::Build(s);
  EXPECT_EQ(index.AtFrame(s, 0).live_blocks(), 0u);
  EXPECT_EQ(index.AtPosition(s, 10).live_blocks(), 0u);
}

}  // namespace
}  // namespace memframe::analysis
