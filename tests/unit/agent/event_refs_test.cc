// Protocol version 2's references and time-stamp gaps (memframe/event_refs.h),
// with version 3's time units: what the agent's encoder writes is decoded
// through libprotobuf and the readers' decoder, and must give back every
// event exactly (its time to the unit), whichever path (reference or
// fallback) each one took.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "encoder_fixture.h"
#include "memframe/event_refs.h"

namespace memframe::agent {
namespace {

constexpr uint32_t kAlloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kFree = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kReallocAlloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, wire::kFlagRealloc);
constexpr uint32_t kReallocFree = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, wire::kFlagRealloc);

Event Alloc(uint64_t ticks, uint64_t address, uint64_t size, uint32_t duration = 30, uint64_t frame = 0,
            uint32_t kind = kAlloc) {
  return {ticks, address, size, 5, duration, PackFrameKind(frame, kind)};
}
Event Free(uint64_t ticks, uint64_t address, uint32_t duration = 20, uint64_t frame = 0, uint32_t kind = kFree) {
  return {ticks, address, 0, 0, duration, PackFrameKind(frame, kind)};
}

class EventRefsTest : public EncoderTest {
 protected:
  // Sends each list as one call of the writer (tid 1, 2, ...), then checks
  // that the stream decodes to all of them, in that order.
  std::vector<wire::Packet> RoundTrip(const std::vector<std::vector<Event>>& batches) {
    std::vector<Event> all;
    uint32_t tid = 1;
    for (const auto& batch : batches) {
      test_support::EncodeEvents(sink_, tid++, batch.data(), static_cast<int>(batch.size()), 0);
      all.insert(all.end(), batch.begin(), batch.end());
    }
    std::vector<wire::Packet> packets = Receive();
    std::vector<wire::PlainEvent> decoded = DecodeBatches(packets);
    EXPECT_EQ(decoded.size(), all.size());
    for (size_t i = 0; i < decoded.size() && i < all.size(); ++i) ExpectSame(decoded[i], all[i], i);
    return packets;
  }
};

int Nonzero(const google::protobuf::RepeatedField<uint32_t>& column) {
  int n = 0;
  for (uint32_t v : column) n += v != 0;
  return n;
}

// RecentlyFreed against its plain meaning (FORMAT.md): per size
// class a list, newest first, of at most kFreedPerClass blocks; a push past
// that drops the oldest; Find / Take name a block by 1 + the number of newer
// ones and remove it. Random pushes, finds and takes over a few classes.
TEST(RecentlyFreed, MatchesAListNewestFirst) {
  auto freed = std::make_unique<wire::RecentlyFreed>();
  freed->Clear();
  std::vector<std::vector<uint64_t>> model(wire::kSizeClasses);
  uint64_t seed = 11;
  auto next = [&] { return seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, seed; };
  const uint64_t sizes[] = {8, 40, 56, 1000, 20000};  // classes 2, 3 (two sizes), 63, the last
  uint64_t found = 0, taken = 0;
  for (int step = 0; step < 200000; ++step) {
    uint64_t size = sizes[next() % 5];
    std::vector<uint64_t>& list = model[wire::SizeClassOf(size)];
    uint64_t address = 0x1000 + 16 * (next() % 40);
    switch (next() % 3) {
      case 0:
        freed->Push(size, address);
        list.insert(list.begin(), address);
        if (list.size() > wire::kFreedPerClass) list.pop_back();
        break;
      case 1: {
        auto it = std::find(list.begin(), list.end(), address);
        uint32_t want = it == list.end() ? 0 : static_cast<uint32_t>(it - list.begin()) + 1;
        if (it != list.end()) list.erase(it), ++found;
        ASSERT_EQ(freed->Find(size, address), want) << "step " << step;
        break;
      }
      default: {
        uint64_t ref = next() % (wire::kFreedPerClass + 2);
        uint64_t got = 0;
        bool ok = freed->Take(size, ref, &got);
        ASSERT_EQ(ok, ref >= 1 && ref <= list.size()) << "step " << step;
        if (!ok) break;
        ASSERT_EQ(got, list[ref - 1]) << "step " << step;
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(ref - 1));
        ++taken;
      }
    }
  }
  EXPECT_GT(found, 10000u);
  EXPECT_GT(taken, 10000u);
}

TEST_F(EventRefsTest, FreesNameTheirAllocationWithinAndAcrossBatches) {
  auto packets = RoundTrip({
      {Alloc(100, 0x1000, 48), Alloc(200, 0x2000, 64), Free(300, 0x1000)},
      {Free(400, 0x2000), Free(500, 0x9000)},  // the second was never seen allocated: by address
  });
  ASSERT_EQ(packets.size(), 2u);
  const wire::EventBatch& first = packets[0].events();
  EXPECT_EQ(first.free_ref_size(), 1);
  EXPECT_EQ(first.free_ref(0), 2u);  // the allocation before the latest
  EXPECT_EQ(first.address_delta_size(), 2);  // the two allocations only
  const wire::EventBatch& second = packets[1].events();
  ASSERT_EQ(second.free_ref_size(), 2);
  EXPECT_EQ(second.free_ref(0), 1u);
  EXPECT_EQ(second.free_ref(1), 0u);
  EXPECT_EQ(second.address_delta_size(), 1);
}

TEST_F(EventRefsTest, CrossThreadFreesAndFreesSentBeforeTheirAllocation) {
  // Thread 2 frees thread 1's block (sent earlier: a reference); thread 3's
  // free is sent before thread 4's batch that allocated it (by address).
  auto packets = RoundTrip({
      {Alloc(100, 0x1000, 48)},
      {Free(150, 0x1000)},
      {Free(260, 0x5000)},
      {Alloc(250, 0x5000, 16), Free(270, 0x5000)},  // a stale entry: named by address above, by reference here
  });
  ASSERT_EQ(packets.size(), 4u);
  EXPECT_EQ(packets[1].events().free_ref(0), 1u);
  EXPECT_EQ(packets[2].events().free_ref(0), 0u);
  EXPECT_EQ(packets[3].events().free_ref(0), 1u);
}

TEST_F(EventRefsTest, AllocationsReuseRecentlyFreedBlocksOfTheirSizeClass) {
  auto packets = RoundTrip({{
      Alloc(100, 0x1000, 48), Alloc(110, 0x2000, 50), Alloc(120, 0x3000, 4000),
      Free(200, 0x1000), Free(210, 0x2000), Free(220, 0x3000),
      Alloc(300, 0x1000, 44),    // 41..56 bytes, one class: the second newest freed (0x2000 is newer)
      Alloc(310, 0x2000, 56),    // now the newest of the class
      Alloc(320, 0x3000, 100),   // another class: by address
      Alloc(330, 0x7000, 4000),  // 0x3000 is free in its class, but this is another block
  }});
  const wire::EventBatch& b = packets[0].events();
  ASSERT_EQ(b.reuse_ref_size(), 7);
  EXPECT_EQ(b.reuse_ref(3), 2u);
  EXPECT_EQ(b.reuse_ref(4), 1u);
  EXPECT_EQ(b.reuse_ref(5), 0u);
  EXPECT_EQ(b.reuse_ref(6), 0u);
  EXPECT_EQ(b.address_delta_size(), 5);  // the first three and the last two allocations
}

TEST_F(EventRefsTest, ReallocPairsRoundTrip) {
  // realloc(p, n) -> q: the FREE at the call's start (duration 0), the ALLOC
  // at its end; moved, then in place (q == p, the freed block reused).
  auto packets = RoundTrip({{
      Alloc(100, 0x1000, 24),
      Free(200, 0x1000, 0, 0, kReallocFree), Alloc(260, 0x8000, 4096, 60, 0, kReallocAlloc),
      Free(304, 0x8000, 0, 0, kReallocFree), Alloc(336, 0x8000, 4090, 32, 0, kReallocAlloc),
  }});
  const wire::EventBatch& b = packets[0].events();
  EXPECT_EQ(Nonzero(b.free_ref()), 2);
  EXPECT_EQ(b.reuse_ref(2), 1u);
  // The ALLOC of a realloc starts where its FREE ended: a gap of 0 (in
  // units of 16 ticks: 200 and 260 - 60 are unit 12, 304 and 336 - 32 unit 19).
  EXPECT_EQ(b.ticks_gap(2), 1u);
  EXPECT_EQ(b.ticks_gap(4), 1u);
}

TEST_F(EventRefsTest, TicksThatCannotBeGapsAreSentExactly) {
  // In time-stamp units (2^kTickShift ticks), the durations too.
  const uint32_t u = 1u << kTickShift;
  auto packets = RoundTrip({{
      Alloc(1000 * u, 0x1000, 8, 30 * u),
      Alloc(1010 * u, 0x2000, 8, 50 * u),  // started before the previous event ended (early rdtsc)
      Free(1100 * u, 0x1000, 20 * u),
      Alloc(1110 * u, 0x3000, 8, 4000 * u),  // a duration longer than its tick (and than the gap)
      Free(2000 * u, 0x3000, 0),
  }});
  const wire::EventBatch& b = packets[0].events();
  EXPECT_EQ(b.ticks_gap(0), 0u);  // the first event's start precedes base_ticks, its own tick
  EXPECT_EQ(b.ticks_gap(1), 0u);
  EXPECT_EQ(b.ticks_gap(2), 1100u - 1010u + 1);  // in units
  EXPECT_EQ(b.ticks_gap(3), 0u);
  EXPECT_EQ(b.ticks_exact_size(), 3);
}

TEST_F(EventRefsTest, TicksGoingBackwardsAreSentAsThePreviousTickAsBefore) {
  std::vector<Event> events = {Alloc(1000, 0x1000, 8), Alloc(900, 0x2000, 8, 10), Free(1200, 0x1000)};
  test_support::EncodeEvents(sink_, 1, events.data(), 3, 0);
  std::vector<wire::PlainEvent> decoded = DecodeBatches(Receive());
  ASSERT_EQ(decoded.size(), 3u);
  EXPECT_EQ(decoded[1].ticks, 1000u >> kTickShift << kTickShift);
  EXPECT_EQ(decoded[1].address, 0x2000u);
  EXPECT_EQ(decoded[2].ticks, 1200u >> kTickShift << kTickShift);
  EXPECT_EQ(decoded[2].address, 0x1000u);
}

TEST_F(EventRefsTest, FrameJumpsSplitBatchesAndReferencesCrossTheSplit) {
  const uint64_t far = (1ull << 33) + 7;
  auto packets = RoundTrip({{
      Alloc(100, 0x1000, 48, 30, 2), Alloc(110, 0x2000, 48, 30, 2),
      Free(120, 0x1000, 20, far), Alloc(130, 0x1000, 48, 30, far),
      Free(140, 0x2000, 20, (1ull << 56) - 1),
  }});
  ASSERT_EQ(packets.size(), 3u);
  EXPECT_EQ(packets[1].events().free_ref(0), 2u);
  EXPECT_EQ(packets[1].events().reuse_ref(0), 1u);
  EXPECT_EQ(packets[2].events().free_ref(0), 2u);
  EXPECT_EQ(packets[2].events().base_frame(), (1ull << 56) - 1);
}

TEST_F(EventRefsTest, DroppedEventsAreCountedAndLeaveTheReferencesInStep) {
  // In drop mode the rings lose events the encoder never sees: the
  // references only ever name what was sent.
  std::vector<Event> first = {Alloc(100, 0x1000, 48), Alloc(110, 0x2000, 48)};
  std::vector<Event> second = {Free(300, 0x2000), Free(310, 0x1000)};
  test_support::EncodeEvents(sink_, 1, first.data(), 2, 0);
  test_support::EncodeEvents(sink_, 1, second.data(), 2, 17);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(packets[1].events().dropped(), 17u);
  auto decoded = DecodeBatches(packets);
  ASSERT_EQ(decoded.size(), 4u);
  EXPECT_EQ(decoded[2].address, 0x2000u);
  EXPECT_EQ(decoded[3].address, 0x1000u);
}

TEST_F(EventRefsTest, FreesBeyondTheWindowAreSentByAddress) {
  std::vector<Event> events;
  events.push_back(Alloc(1, 0x10, 8));
  for (uint64_t i = 0; i < wire::kFreeRefWindow; ++i) events.push_back(Alloc(2 + i, 0x100000 + 16 * i, 8));
  events.push_back(Free(1ull << 20, 0x10));  // 2^16 + 1 allocations ago
  events.push_back(Free((1ull << 20) + 1, 0x100000 + 16 * (wire::kFreeRefWindow - 1)));  // the latest
  auto packets = RoundTrip({events});
  // More events than one packet holds: the writer's calls are split.
  ASSERT_EQ(packets.size(), 2u);
  const wire::EventBatch& last = packets[1].events();
  ASSERT_EQ(last.free_ref_size(), 2);
  EXPECT_EQ(last.free_ref(0), 0u);
  EXPECT_EQ(last.free_ref(1), 1u);
}

TEST_F(EventRefsTest, ANewStreamNamesNothingOfTheOldOne) {
  // After fork the child's writer starts a new connection: its recorder
  // knows no block of the parent's stream.
  std::vector<Event> parent = {Alloc(100, 0x1000, 48)};
  test_support::EncodeEvents(sink_, 1, parent.data(), 1, 0);
  Receive();
  ResetEventEncoder();
  std::vector<Event> child = {Free(200, 0x1000), Alloc(210, 0x1000, 48)};
  test_support::EncodeEvents(sink_, 2, child.data(), 2, 0);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].events().free_ref(0), 0u);
  EXPECT_EQ(packets[0].events().reuse_ref(0), 0u);
  auto decoded = DecodeBatches(packets);  // a fresh decoder, as the new stream's reader
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[0].address, 0x1000u);
  EXPECT_EQ(decoded[1].address, 0x1000u);
}

TEST_F(EventRefsTest, AReferenceToNothingIsDamageAndStopsTheStream) {
  std::vector<Event> events = {Alloc(100, 0x1000, 48), Free(200, 0x1000)};
  test_support::EncodeEvents(sink_, 1, events.data(), 2, 0);
  test_support::EncodeEvents(sink_, 1, events.data(), 2, 0);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 2u);
  wire::EventBatch bad = packets[0].events();
  bad.set_free_ref(0, 2);  // only one allocation was made
  wire::EventBatchDecoder decoder(wire::kProtocolVersion);
  std::vector<wire::PlainEvent> out;
  std::string error;
  EXPECT_FALSE(decoder.Decode(bad, &out, &error));
  EXPECT_EQ(error, "corrupt batch of thread 1: free_ref 2 names no allocation");
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(decoder.Decode(packets[1].events(), &out, &error));
  EXPECT_EQ(error, "corrupt batch of thread 1: follows a damaged batch");
  bad = packets[0].events();
  bad.add_reuse_ref(0);
  wire::EventBatchDecoder fresh(wire::kProtocolVersion);
  EXPECT_FALSE(fresh.Decode(bad, &out, &error));
  EXPECT_EQ(error, "corrupt batch of thread 1: 2 kinds but 2 reuse_ref entries (1 expected)");
}

TEST_F(EventRefsTest, Version3ColumnsMustFitTheirKinds) {
  // A sized free (its size in free_size) and an allocation.
  std::vector<Event> events = {Alloc(100, 0x1000, 48), Free(200, 0x1000)};
  events[1].size = 48;
  test_support::EncodeEvents(sink_, 1, events.data(), 2, 0);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 1u);
  const wire::EventBatch& good = packets[0].events();
  ASSERT_EQ(good.size_size(), 1);
  ASSERT_EQ(good.free_size_size(), 1);
  EXPECT_EQ(good.free_stack_size(), 0);  // all 0: left out
  auto refused = [](const wire::EventBatch& b) {
    wire::EventBatchDecoder decoder(wire::kProtocolVersion);
    std::vector<wire::PlainEvent> out;
    std::string error;
    EXPECT_FALSE(decoder.Decode(b, &out, &error));
    EXPECT_TRUE(out.empty());
    return error;
  };
  wire::EventBatch bad = good;
  bad.add_free_size(1);
  EXPECT_EQ(refused(bad), "corrupt batch of thread 1: 2 kinds but 2 free_size entries (1 expected)");
  bad = good;
  bad.add_size(1);
  EXPECT_EQ(refused(bad), "corrupt batch of thread 1: 2 kinds but 2 size entries (1 expected)");
  bad = good;
  bad.add_free_stack(1);
  bad.add_free_stack(2);
  EXPECT_EQ(refused(bad), "corrupt batch of thread 1: 2 kinds but 2 free_stack entries (1 expected)");
  bad = good;
  bad.set_tick_shift(wire::kMaxTickShift + 1);
  EXPECT_EQ(refused(bad), "corrupt batch of thread 1: tick_shift 17 (at most 16)");
  bad = good;
  bad.set_duration_ticks(0, 1000);  // a log-scale code of 2^120 ticks
  EXPECT_EQ(refused(bad), "corrupt batch of thread 1: duration code 1000 past the clock's range");
  // Version 3 read the same column as units of 2^tick_shift ticks.
  wire::EventBatchDecoder v3(3);
  std::vector<wire::PlainEvent> out;
  std::string error;
  bad.set_duration_ticks(0, UINT32_MAX);  // in units: past 2^32 ticks
  bad.set_tick_shift(4);
  EXPECT_FALSE(v3.Decode(bad, &out, &error));
  EXPECT_EQ(error, "corrupt batch of thread 1: a duration past the clock's range");
  // Version 5's unit of durations is bounded as the time stamps' is.
  bad = good;
  bad.set_duration_shift(wire::kMaxTickShift + 1);
  EXPECT_EQ(refused(bad), "corrupt batch of thread 1: duration_shift 17 (at most 16)");
}

TEST_F(EventRefsTest, TimeInUnitsRoundsTicksDownAndDurationsOnALogScale) {
  // Ticks go down to a unit of 1024; durations to the nearest unit of 16,
  // then to the nearest of 8 steps per doubling (exact below 16 units).
  if (kTickShift != 10 || kDurationShift != 4) GTEST_SKIP() << "the figures are x86-64's units";
  std::vector<Event> events = {Alloc(1000, 0x1000, 48, 30), Free(1100, 0x1000, 20), Alloc(50000, 0x1000, 48, 40000),
                               Free(90000, 0x1000, 1000), Alloc(95000, 0x2000, 48, 12)};
  test_support::EncodeEvents(sink_, 1, events.data(), 5, 0);
  const std::vector<wire::Packet> packets = Receive();
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].events().tick_shift(), 10u);
  EXPECT_EQ(packets[0].events().duration_shift(), 4u);
  std::vector<wire::PlainEvent> out = DecodeBatches(packets);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].ticks, 0u);             // 1000
  EXPECT_EQ(out[0].duration, 2u * 16);     // 30
  EXPECT_EQ(out[1].ticks, 1u * 1024);      // 1100
  EXPECT_EQ(out[1].duration, 1u * 16);     // 20
  EXPECT_EQ(out[2].ticks, 48u * 1024);     // 50000
  EXPECT_EQ(out[2].duration, 2560u * 16);  // 40000 = 2500 units: 10 steps of 256 units, 2.4% over
  EXPECT_EQ(out[3].ticks, 87u * 1024);     // 90000
  EXPECT_EQ(out[3].duration, 64u * 16);    // 1000 = 63 units: up to the next doubling
  EXPECT_EQ(out[4].ticks, 92u * 1024);     // 95000
  EXPECT_EQ(out[4].duration, 1u * 16);     // 12: a fast malloc keeps its unit
  // The ALLOC at 50000 started 40960 ticks (its coded duration) earlier: 40
  // time-stamp units before unit 48, 7 units after the FREE at unit 1.
  EXPECT_EQ(packets[0].events().ticks_gap(2), 48u - 40 - 1 + 1);
}

TEST(DurationCode, ExactBelow16UnitsThenWithin1In16AndMonotonic) {
  const uint32_t shift = 4;
  uint32_t previous_code = 0, previous_units = 0;
  for (uint64_t d = 0; d <= UINT32_MAX >> shift; d = d < 5000 ? d + 1 : d + d / 997) {
    const wire::CodedDuration c = wire::CodeDuration(static_cast<uint32_t>(d), shift);
    if (d < 16) {
      EXPECT_EQ(c.units, d);
    }
    const uint64_t off = c.units > d ? c.units - d : d - c.units;
    ASSERT_LE(off * 16, d) << d;  // half a step at most
    ASSERT_GE(c.code, previous_code) << d;
    ASSERT_GE(c.units, previous_units) << d;
    ASSERT_LT(c.code, 1u << 14) << d;  // two varint bytes at most
    previous_code = c.code;
    previous_units = c.units;
  }
  // The longest duration a reader takes, never more.
  EXPECT_LE(wire::CodeDuration(UINT32_MAX >> shift, shift).units, UINT32_MAX >> shift);
  EXPECT_GE(wire::CodeDuration(UINT32_MAX >> shift, shift).units * 16ull, (UINT32_MAX >> shift) * 15ull);
}

}  // namespace
}  // namespace memframe::agent
