#include "memframe/analysis/event_store.h"

#include <gtest/gtest.h>

#include <vector>

#include "memframe/format.h"

namespace memframe::analysis {
namespace {

constexpr size_t kChunk = EventStore::kChunkEvents;

// Every field at its extremes and in between; ticks and frames that go
// backwards too (a hand-built stream may do anything).
Event Varied(size_t i) {
  Event e;
  e.ticks = i % 7 == 0 ? UINT64_MAX - i : 1000 + i * 3;
  e.address = i % 5 == 0 ? UINT64_MAX - i : 0x7f0000000000ull + (i % 97) * 64;
  e.size = i % 11 == 0 ? UINT64_MAX : i % 300;
  e.stack_id = i % 13 == 0 ? UINT32_MAX : static_cast<uint32_t>(i % 50);
  e.frame = i % 17 == 0 ? UINT64_MAX : i % 29 == 0 ? (1ull << 40) + i : i / 100;
  e.duration_ticks = i % 19 == 0 ? UINT32_MAX : static_cast<uint32_t>(i % 400);
  e.thread = i % 23 == 0 ? UINT16_MAX : static_cast<uint16_t>(i % 4);
  e.packed_kind = static_cast<uint8_t>(wire::PackKind(1 + i % 6, i % 4, (i % 3 == 0 ? wire::kFlagRealloc : 0) |
                                                                         (i % 8 == 0 ? wire::kFlagCalloc : 0)));
  return e;
}

void ExpectSame(const Event& a, const Event& b, size_t i) {
  EXPECT_EQ(a.ticks, b.ticks) << i;
  EXPECT_EQ(a.address, b.address) << i;
  EXPECT_EQ(a.size, b.size) << i;
  EXPECT_EQ(a.stack_id, b.stack_id) << i;
  EXPECT_EQ(a.frame, b.frame) << i;
  EXPECT_EQ(a.duration_ticks, b.duration_ticks) << i;
  EXPECT_EQ(a.thread, b.thread) << i;
  EXPECT_EQ(a.packed_kind, b.packed_kind) << i;
}

TEST(EventStore, EveryFieldSurvivesAcrossChunkBoundaries) {
  EventStore store;
  std::vector<Event> truth;
  for (size_t i = 0; i < 3 * kChunk + 5; ++i) {
    truth.push_back(Varied(i));
    store.push_back(truth.back());
  }
  ASSERT_EQ(store.size(), truth.size());
  EXPECT_EQ(store.chunk_count(), 4u);
  size_t i = 0;
  for (const Event& e : store) ExpectSame(e, truth[i], i), ++i;
  EXPECT_EQ(i, truth.size());
  for (size_t j : {size_t{0}, kChunk - 1, kChunk, 2 * kChunk + 1, truth.size() - 1}) ExpectSame(store[j], truth[j], j);
  ExpectSame(store.back(), truth.back(), truth.size() - 1);
}

TEST(EventStore, CopiesMovesAndListAssignment) {
  EventStore a;
  for (size_t i = 0; i < kChunk + 3; ++i) a.push_back(Varied(i));
  EventStore b = a;
  EventStore c = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  ASSERT_EQ(b.size(), kChunk + 3);
  ASSERT_EQ(c.size(), kChunk + 3);
  ExpectSame(b[kChunk + 1], Varied(kChunk + 1), 0);
  ExpectSame(c[5], Varied(5), 5);
  c = {Varied(1), Varied(2)};
  ASSERT_EQ(c.size(), 2u);
  ExpectSame(c[1], Varied(2), 2);
}

TEST(EventStore, IteratorsOnDifferentChunksKeepTheirOwnEvents) {
  EventStore store;
  for (size_t i = 0; i < 2 * kChunk + 1; ++i) store.push_back(Varied(i));
  auto first = store.begin();
  auto second = store.begin() + static_cast<std::ptrdiff_t>(kChunk + 7);
  const Event& a = *first;
  const Event& b = *second;
  ExpectSame(a, Varied(0), 0);
  ExpectSame(b, Varied(kChunk + 7), kChunk + 7);
  EXPECT_EQ(second - first, static_cast<std::ptrdiff_t>(kChunk + 7));
  EXPECT_EQ(store.end() - store.begin(), static_cast<std::ptrdiff_t>(store.size()));
}

TEST(EventStore, RewriteEditsAndDropsInOnePass) {
  EventStore store;
  for (size_t i = 0; i < 2 * kChunk + 10; ++i) store.push_back(Varied(i));
  size_t seen = 0;
  store.Rewrite([&](Event& e) {
    e.frame = static_cast<uint32_t>(seen);
    return seen++ % 2 == 0;  // keep the even ones
  });
  EXPECT_EQ(seen, 2 * kChunk + 10);
  ASSERT_EQ(store.size(), kChunk + 5);
  for (size_t i = 0; i < store.size(); ++i) {
    Event want = Varied(2 * i);
    want.frame = static_cast<uint32_t>(2 * i);
    ExpectSame(store[i], want, i);
  }
}

// A game-shaped stream (the same few sites every frame, temporaries freed
// soon after) is what the store is sized for: far below the 48 bytes of a
// plain Event, and below the 16-byte budget (tests/bench/README.md, "Reading
// that scales": bench.capture_scale).
EventStore GameShaped(size_t n, uint64_t first_frame) {
  EventStore store;
  uint64_t ticks = 1'000'000, seed = 7;
  std::vector<uint64_t> live;
  for (size_t i = 0; i < n; ++i) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    Event e;
    ticks += 200 + seed % 64;
    e.ticks = ticks;
    e.frame = first_frame + i / 8000;
    e.duration_ticks = 60 + static_cast<uint32_t>(seed % 32);
    if (live.size() < 64 && (seed >> 8) % 2 == 0) {
      e.packed_kind = static_cast<uint8_t>(EventKind::kAlloc);
      e.address = 0x55d000000000ull + ((seed >> 16) % 4096) * 64;
      e.size = 16 + (i % 40) * 8;
      e.stack_id = static_cast<uint32_t>(1 + i % 40);
      live.push_back(e.address);
    } else if (!live.empty()) {
      e.packed_kind = static_cast<uint8_t>(EventKind::kFree);
      e.address = live.back();
      live.pop_back();
    }
    store.push_back(e);
  }
  return store;
}

TEST(EventStore, GameShapedEventsTakeAFewBytesEach) {
  const size_t n = 1'000'000;
  EventStore store = GameShaped(n, 0);
  EXPECT_LT(store.memory_bytes(), n * 8) << store.memory_bytes() / static_cast<double>(n) << " bytes an event";
}

// Frames are delta-coded: a capture whose frames are past 2^40 costs what
// one counted from 0 does (a few bytes a chunk for the first delta).
TEST(EventStore, FramesPast2To40CostNothingExtra) {
  const size_t n = 200'000;
  EventStore low = GameShaped(n, 0), high = GameShaped(n, (1ull << 40) + 12345);
  EXPECT_LE(high.memory_bytes(), low.memory_bytes() + 16 * high.chunk_count());
  size_t i = 0;
  for (const Event& e : high) {
    ASSERT_EQ(e.frame, (1ull << 40) + 12345 + i / 8000) << i;
    ++i;
  }
}

}  // namespace
}  // namespace memframe::analysis
