// How an Event is kept in its thread's ring: a 24-byte record instead of the
// 40-byte Event, so that a ring of 64 Ki events takes 1.5 MiB a thread, not
// 2.5 (tests/bench/README.md, "Resident memory"). Nothing is lost: what does
// not fit an event's record goes into records of the ring's own, written
// just before it, and the writer's RecordReader gives back the same Event.
//
//   head      u64  kind << 56 | address's low 56 bits
//   ticks     u32  the tick's low 32 bits
//   stack_id  u32
//   size      u32  the size's low 32 bits
//   duration  u32
//
// The ring's own records have an EVENT_NONE kind (never an event's), told
// apart by their family bits:
//   kRecordFrame  head's low 56 bits: the frame of the events that follow.
//                 Written when a thread's frame differs from its last
//                 event's: once a frame per thread, not in every record.
//   kRecordEpoch  head's low 56 bits: the ticks' high 32 bits of the events
//                 that follow. Once every 2^32 ticks (1-4 s) per thread.
//   kRecordWide   the next event's high bits: address's top byte in head's
//                 low byte, size's high 32 bits in size. Only for blocks of
//                 4 GiB and more, a tagged pointer, a frame number in a
//                 FRAME_END's size past 2^32.
//   kRecordHeap   head's low 56 bits: the id of the private heap (an
//                 ALLOCATOR_HEAP allocator) the next event's block came
//                 from. Only for blocks of a private heap (Windows).
// The ring's own records keep stack_id 0, so a scan for stack ids may read
// every record.
#pragma once

#include <cstdint>

#include "capture/event.h"
#include "memframe.pb.h"
#include "memframe/format.h"

namespace memframe::agent {

struct RingRecord {
  uint64_t head;
  uint32_t ticks;
  uint32_t stack_id;
  uint32_t size;
  uint32_t duration;

  uint32_t kind() const { return static_cast<uint32_t>(head >> kHeadKindShift); }
  static constexpr int kHeadKindShift = 56;
  static constexpr uint64_t kLow56 = (uint64_t{1} << kHeadKindShift) - 1;
};
static_assert(sizeof(RingRecord) == 24);
static_assert(kKindBits == 64 - RingRecord::kHeadKindShift, "a packed kind fills the head's top byte");

constexpr uint32_t kRecordFrame = wire::PackKind(wire::EVENT_NONE, 1, 0);
constexpr uint32_t kRecordEpoch = wire::PackKind(wire::EVENT_NONE, 2, 0);
constexpr uint32_t kRecordWide = wire::PackKind(wire::EVENT_NONE, 3, 0);
constexpr uint32_t kRecordHeap = wire::PackKind(wire::EVENT_NONE, 0, wire::kFlagCustom);

// The producer's side: what the thread's last records said. Only the ring's
// own thread uses it (the hook's RecursionGuard keeps a signal handler out
// while it writes).
struct RecordPacker {
  static constexpr uint64_t kNone = UINT64_MAX;  // never a frame (56 bits) nor an epoch (32)
  static constexpr uint32_t kMaxRecords = 4;     // an event's records at most
  uint64_t frame = kNone;
  uint64_t epoch = kNone;

  // True when `e` takes one record: the same frame and epoch as the last,
  // nothing wide. The hook's fast path.
  bool Plain(uint64_t ticks, uint64_t address, uint64_t size, uint64_t event_frame) const {
    // One branch for the four tests (the hook's cost): a size of 4 GiB or
    // more and an address's top byte each leave bits above bit 31 of `wide`.
    const uint64_t wide = (size | address >> 24) >> 32;
    return (((ticks >> 32) ^ epoch) | (event_frame ^ frame) | wide) == 0;
  }
  // The records `e` takes: its own, after a frame's, an epoch's and a wide
  // one where needed.
  uint32_t Count(const Event& e, uint32_t heap = 0) const {
    return 1 + (e.frame() != frame) + ((e.ticks >> 32) != epoch) + NeedsWide(e) + (heap != 0);
  }
  static bool NeedsWide(const Event& e) { return ((e.address >> RingRecord::kHeadKindShift) | (e.size >> 32)) != 0; }

  // The event's own record (its fields' low bits).
  static RingRecord EventRecord(const Event& e) {
    return RingRecord{uint64_t{e.kind()} << RingRecord::kHeadKindShift | (e.address & RingRecord::kLow56),
                      static_cast<uint32_t>(e.ticks), e.stack_id, static_cast<uint32_t>(e.size), e.duration};
  }
  // The same for an event Plain() accepted, whose address has no top byte.
  static RingRecord PlainRecord(uint64_t ticks, uint64_t address, uint64_t size, uint32_t stack_id,
                                uint32_t duration, uint32_t kind) {
    return RingRecord{uint64_t{kind} << RingRecord::kHeadKindShift | address, static_cast<uint32_t>(ticks), stack_id,
                      static_cast<uint32_t>(size), duration};
  }

  // Writes Count(e, heap) records at ring[at & mask], ring[(at + 1) & mask], ...
  void Write(const Event& e, RingRecord* ring, uint64_t at, uint64_t mask, uint32_t heap = 0) {
    const uint64_t e_frame = e.frame();
    if (__builtin_expect(e_frame != frame, 0)) {
      frame = e_frame;
      ring[at++ & mask] = Own(kRecordFrame, e_frame, 0);
    }
    const uint64_t e_epoch = e.ticks >> 32;
    if (__builtin_expect(e_epoch != epoch, 0)) {
      epoch = e_epoch;
      ring[at++ & mask] = Own(kRecordEpoch, e_epoch, 0);
    }
    if (__builtin_expect(NeedsWide(e), 0))
      ring[at++ & mask] = Own(kRecordWide, e.address >> RingRecord::kHeadKindShift, static_cast<uint32_t>(e.size >> 32));
    if (heap) ring[at++ & mask] = Own(kRecordHeap, heap, 0);
    ring[at & mask] = EventRecord(e);
  }

 private:
  static RingRecord Own(uint32_t kind, uint64_t value, uint32_t size) {
    return RingRecord{uint64_t{kind} << RingRecord::kHeadKindShift | value, 0, 0, size, 0};
  }
};

// The writer's side: reads a thread's records in order, across batches.
struct RecordReader {
  uint64_t frame = 0;
  uint64_t epoch = 0;
  uint64_t wide_address = 0;  // the next event's high bits (kRecordWide)
  uint64_t wide_size = 0;
  uint32_t heap = 0;  // the next event's private heap (kRecordHeap)

  // An event's fields as its record and what the reader knows give them
  // (the writer's encoder takes them so, without packing an Event).
  struct Fields {
    uint64_t ticks, address, size, frame;
    uint32_t stack_id, duration, kind;
    uint32_t heap;  // 0 unless the block came from a private heap
  };
  static bool IsEvent(const RingRecord& r) { return wire::KindOf(r.kind()) != wire::EVENT_NONE; }
  // `r` is an event's record (IsEvent).
  Fields TakeEvent(const RingRecord& r) {
    const Fields f{epoch << 32 | r.ticks, wide_address | (r.head & RingRecord::kLow56), wide_size | r.size, frame,
                   r.stack_id, r.duration, r.kind(), heap};
    wide_address = wide_size = 0;
    heap = 0;
    return f;
  }

  // True with *out set for an event's record; false for the ring's own.
  bool Read(const RingRecord& r, Event* out) {
    if (__builtin_expect(IsEvent(r), 1)) {
      const Fields f = TakeEvent(r);
      *out = Event{f.ticks, f.address, f.size, f.stack_id, f.duration, PackFrameKind(f.frame, f.kind)};
      return true;
    }
    const uint32_t kind = r.kind();
    const uint64_t value = r.head & RingRecord::kLow56;
    if (kind == kRecordFrame) {
      frame = value;
    } else if (kind == kRecordEpoch) {
      epoch = value;
    } else if (kind == kRecordWide) {
      wide_address = value << RingRecord::kHeadKindShift;
      wide_size = uint64_t{r.size} << 32;
    } else if (kind == kRecordHeap) {
      heap = static_cast<uint32_t>(value);
    }
    return false;
  }
};

}  // namespace memframe::agent
