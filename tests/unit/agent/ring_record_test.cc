// The ring's records (agent/buffer/ring_record.h): every event comes back
// from them as it went in, whatever its fields hold, and the ring's own
// records are written only where an event needs them.
#include "buffer/ring_record.h"

#include <gtest/gtest.h>

#include <vector>

#include "encoder_fixture.h"

namespace memframe::agent {
namespace {

constexpr uint32_t kAlloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kFree = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_NEW, 0);
constexpr uint32_t kLargest =
    wire::PackKind(wire::EVENT_ALLOCATOR_RELEASE, wire::kFamilyMask, wire::kFlagRealloc | wire::kFlagCalloc | wire::kFlagCustom);

void ExpectSameEvent(const Event& got, const Event& want, size_t i) {
  EXPECT_EQ(got.ticks, want.ticks) << i;
  EXPECT_EQ(got.address, want.address) << i;
  EXPECT_EQ(got.size, want.size) << i;
  EXPECT_EQ(got.stack_id, want.stack_id) << i;
  EXPECT_EQ(got.duration, want.duration) << i;
  EXPECT_EQ(got.frame_kind, want.frame_kind) << i;
}

std::vector<Event> ReadAll(const std::vector<RingRecord>& records, RecordReader* reader) {
  std::vector<Event> out;
  for (const RingRecord& r : records)
    if (Event e; reader->Read(r, &e)) out.push_back(e);
  return out;
}

TEST(RingRecord, EveryFieldComesBackWhole) {
  const std::vector<Event> events = {
      {0x1234'5678'9abcull, 0x7fff'1234'5670ull, 48, 7, 25, PackFrameKind(3, kAlloc)},
      // The tick's high bits change (an epoch record), and go back.
      {0x1'0000'0000ull, 0x7fff'1234'5670ull, 0, 0, 0, PackFrameKind(3, kFree)},
      {0xffff'ffffull, 0x10, 1, 1, UINT32_MAX, PackFrameKind(3, kAlloc)},
      // A block of 4 GiB and more, a tagged pointer, both at once.
      {0x2'0000'0001ull, 0x1000, (5ull << 32) + 17, 2, 3, PackFrameKind(4, kAlloc)},
      {0x2'0000'0002ull, 0xb400'7fff'0000'1000ull, 64, 2, 3, PackFrameKind(4, kAlloc)},
      {0x2'0000'0003ull, UINT64_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX, PackFrameKind((1ull << 56) - 1, kLargest)},
      // The wide record is the next event's only.
      {0x2'0000'0004ull, 0x2000, 32, 2, 3, PackFrameKind((1ull << 56) - 1, kAlloc)},
      {UINT64_MAX, 0, 0, 0, 0, PackFrameKind(0, kFree)},
  };
  const std::vector<RingRecord> records = test_support::ToRingRecords(events.data(), events.size());
  RecordReader reader;
  const std::vector<Event> read = ReadAll(records, &reader);
  ASSERT_EQ(read.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) ExpectSameEvent(read[i], events[i], i);
  // frame+epoch+event, epoch+event, epoch+event, frame+epoch+wide+event,
  // wide+event, frame+wide+event, event, frame+epoch+event.
  EXPECT_EQ(records.size(), 3u + 2 + 2 + 4 + 2 + 3 + 1 + 3);
}

TEST(RingRecord, OwnRecordsOnlyWhereTheFrameOrTheEpochChanges) {
  std::vector<Event> events;
  for (uint64_t i = 0; i < 1000; ++i)
    events.push_back({(1ull << 40) + i * 1000, 0x1000 + 16 * i, 16 + i, 1, 30, PackFrameKind(10 + i / 100, kAlloc)});
  const std::vector<RingRecord> records = test_support::ToRingRecords(events.data(), events.size());
  // One frame record for each of 10 frames, one epoch record.
  EXPECT_EQ(records.size(), 1000u + 10 + 1);
  for (const RingRecord& r : records) EXPECT_EQ(r.stack_id == 0, wire::KindOf(r.kind()) == wire::EVENT_NONE);
}

TEST_F(EncoderTest, AnEventsRecordsSplitAcrossTwoBatchesEncodeAsOne) {
  // The writer's batches end where the ring wraps around: an event's own
  // records may end one batch and the event begin the next, and a batch may
  // hold no event at all.
  const std::vector<Event> events = {
      {100, 0x1000, 48, 1, 30, PackFrameKind(1, kAlloc)},
      {(3ull << 32) + 5, 0x1000, 0, 0, 20, PackFrameKind(2, kFree)},
      {(3ull << 32) + 9, 0x3000, 7ull << 32, 1, 30, PackFrameKind(2, kAlloc)},
  };
  const std::vector<RingRecord> records = test_support::ToRingRecords(events.data(), events.size());
  ASSERT_EQ(records.size(), 3u + 3 + 2);
  RecordReader reader;
  EXPECT_EQ(EncodeEventBatch(sink_, 1, records.data(), 4, 0, &reader), 1u);      // ..., the frame record
  EXPECT_EQ(EncodeEventBatch(sink_, 1, records.data() + 4, 1, 9, &reader), 0u);  // the epoch record alone
  EXPECT_EQ(EncodeEventBatch(sink_, 1, records.data() + 5, 3, 0, &reader), 2u);
  const std::vector<wire::Packet> packets = Receive();
  const std::vector<wire::PlainEvent> decoded = DecodeBatches(packets);
  ASSERT_EQ(decoded.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) ExpectSame(decoded[i], events[i], i);
  // A batch without events sends nothing, and no drop count.
  size_t batches = 0;
  for (const wire::Packet& p : packets) {
    if (!p.has_events()) continue;
    ++batches;
    EXPECT_EQ(p.events().dropped(), 0u);
  }
  EXPECT_EQ(batches, 2u);
}

}  // namespace
}  // namespace memframe::agent
