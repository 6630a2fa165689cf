// The model both ends of an agent stream keep so that an EventBatch can name
// addresses by reference instead of spelling them out (protocol version 2,
// FORMAT.md "Addresses and time stamps"):
//
//  - a FREE names the allocation it frees by how many allocations of the
//    stream ago it was made (free_ref), so the freed address costs about
//    nothing when the free comes soon after the allocation;
//  - an ALLOC whose block was freed a moment ago (allocators hand back the
//    last freed block of a size class first) names it by its place among the
//    recently freed blocks of its size class (reuse_ref);
//  - time stamps are the gap from the end of the thread's previous event to
//    the start of this one, so the allocator time already in `duration` is
//    not paid twice.
//
// Header-only and allocation-free: the agent keeps these in pages of its own
// (on the writer thread), the readers in ordinary memory. Both sides change
// their state with the same calls in the same order (the stream's batch
// order), which is what keeps them in step.
#pragma once

#include <cstdint>
#include <cstring>

#include "memframe.pb.h"
#include "memframe/format.h"

namespace memframe::wire {

// A free_ref reaches back at most this many allocations of its stream.
constexpr uint64_t kFreeRefWindow = uint64_t{1} << 16;

// Size classes as glibc's chunks (16-byte steps, 32 bytes at least), the
// largest class holding every block of 16 KiB or more.
constexpr uint32_t kSizeClasses = 1024;
constexpr uint32_t kFreedPerClass = 16;
inline uint32_t SizeClassOf(uint64_t size) {
  if (size >= 16 * (kSizeClasses - 2)) return kSizeClasses - 1;
  uint32_t c = static_cast<uint32_t>((size + 23) >> 4);
  return c < 2 ? 2 : c;
}

// Blocks freed recently (by a FREE that carried a free_ref, so both ends know
// their size), per size class, newest last.
class RecentlyFreed {
 public:
  void Clear() { memset(count_, 0, sizeof(count_)); }
  void Push(uint64_t size, uint64_t address) { PushOfClass(SizeClassOf(size), address); }
  void PushOfClass(uint32_t c, uint64_t address) {
    uint64_t* blocks = blocks_[c];
    if (count_[c] == kFreedPerClass) {
      // Plain loops, not memmove: at most 15 words, and a call to memmove
      // of a variable length cost the writer's encoder ~6% (BM_EncodeBatch).
      for (uint32_t k = 0; k + 1 < kFreedPerClass; ++k) blocks[k] = blocks[k + 1];
      --count_[c];
    }
    blocks[count_[c]++] = address;
  }
  // The encoder: 1 + how many newer blocks of the class precede `address`,
  // removing it; 0 when it is not among them.
  uint32_t Find(uint64_t size, uint64_t address) {
    uint32_t c = SizeClassOf(size);
    for (uint32_t k = 0; k < count_[c]; ++k) {
      if (blocks_[c][count_[c] - 1 - k] != address) continue;
      Remove(c, count_[c] - 1 - k);
      return k + 1;
    }
    return 0;
  }
  // A kept window's head (WindowStart) lists them: class c's k-th, oldest first.
  uint32_t CountOf(uint32_t c) const { return count_[c]; }
  uint64_t BlockOf(uint32_t c, uint32_t k) const { return blocks_[c][k]; }
  // The decoder: the block Find returned `ref` for, removing it; false when
  // there is no such block (damaged data).
  bool Take(uint64_t size, uint64_t ref, uint64_t* address) {
    uint32_t c = SizeClassOf(size);
    if (ref == 0 || ref > count_[c]) return false;
    uint32_t at = count_[c] - static_cast<uint32_t>(ref);
    *address = blocks_[c][at];
    Remove(c, at);
    return true;
  }

 private:
  void Remove(uint32_t c, uint32_t at) {
    for (uint32_t k = at; k + 1 < count_[c]; ++k) blocks_[c][k] = blocks_[c][k + 1];
    --count_[c];
  }
  uint64_t blocks_[kSizeClasses][kFreedPerClass];
  uint8_t count_[kSizeClasses];
};

// The encoder's side: which recent allocation made each live block. A
// direct-mapped table: a block whose slot was taken by a later allocation,
// or one allocated before this stream's encoder saw it, is simply sent by
// address (free_ref 0). Call Clear() before the first use.
class RefEncoder {
 public:
  void Clear() {
    memset(slots_, 0, sizeof(slots_));
    serial_ = 0;
    freed_.Clear();
  }
  // The free_ref of a FREE of `address` (0: send the address).
  uint32_t FreeRef(uint64_t address) {
    Slot& slot = slots_[SlotOf(address)];
    const uint64_t serial = slot.serial_class >> kClassBits;
    if (address == 0 || slot.address != address || serial_ - serial >= kFreeRefWindow) return 0;
    freed_.PushOfClass(static_cast<uint32_t>(slot.serial_class & kClassMask), address);
    slot.address = 0;
    return static_cast<uint32_t>(serial_ - serial + 1);
  }
  // A hint: FreeRef or Alloc of `address` comes soon (changes nothing).
  void Prefetch(uint64_t address) const { __builtin_prefetch(&slots_[SlotOf(address)], 1); }
  // The reuse_ref of an ALLOC (0: send the address); counts the allocation.
  uint32_t Alloc(uint64_t address, uint64_t size) {
    uint32_t ref = freed_.Find(size, address);
    ++serial_;
    slots_[SlotOf(address)] = {address, serial_ << kClassBits | SizeClassOf(size)};
    return ref;
  }

 private:
  static constexpr int kSlotBits = 16;
  // 16 bytes a slot (1 MiB in all, resident in the game's process): the
  // allocation's serial beside its size class, which is all a free needs of
  // its size. Past 2^54 allocations (six years at 100 M a second) a stored
  // serial loses its top bits, and every free is then sent by address.
  static constexpr int kClassBits = 10;
  static constexpr uint64_t kClassMask = (uint64_t{1} << kClassBits) - 1;
  static_assert(kSizeClasses <= (1u << kClassBits));
  struct Slot {
    uint64_t address, serial_class;
  };
  static uint32_t SlotOf(uint64_t address) {
    return static_cast<uint32_t>((address * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
  }
  Slot slots_[1u << kSlotBits];
  uint64_t serial_ = 0;
  RecentlyFreed freed_;
};

// Time stamps (ticks_gap): an event that reads its tick after the real call
// (an allocation or a mapping) started `duration` ticks before it; the
// others (frees, unmappings: read before the call; markers, frame ends:
// duration 0) start at their tick and end `duration` after.
inline bool TickedAfterCall(uint32_t packed_kind) {
  uint32_t kind = KindOf(packed_kind);
  return kind == EVENT_ALLOC || kind == EVENT_MAP;
}

// Protocol 3 sends time in units of 2^shift ticks (EventBatch.tick_shift):
// an event's tick rounded down to a unit, its duration to the nearest unit
// (so a frame's allocator time adds up right), capped where it would no
// longer fit 32 bits in ticks. An event whose start then falls before the
// previous one's end is sent exactly (ticks_exact), as an early rdtsc is.
struct UnitTicks {
  uint64_t ticks;
  uint32_t duration;
};
inline uint32_t DurationUnits(uint32_t duration, uint32_t shift) {
  if (shift == 0) return duration;
  const uint64_t units = (uint64_t{duration} + (uint64_t{1} << (shift - 1))) >> shift;
  const uint64_t most = UINT32_MAX >> shift;
  return static_cast<uint32_t>(units < most ? units : most);
}
inline UnitTicks ToUnits(uint64_t t, uint32_t duration, uint32_t shift) {
  return {t >> shift, DurationUnits(duration, shift)};
}

// Protocol 5 gives the time stamps a unit of their own (tick_shift), coarser
// than the durations' (duration_shift): a timeline needs a microsecond, an
// allocator time must tell a 20-tick malloc from none. The gaps between time
// stamps (TickGaps) then take a duration in time-stamp units, rounded down:
// the duration's ticks (its units, as its code stands for them) over the
// time stamps' unit. Both ends compute it from what is sent.
inline uint32_t DurationInTickUnits(uint32_t duration_units, uint32_t duration_shift, uint32_t tick_shift) {
  return static_cast<uint32_t>((uint64_t{duration_units} << duration_shift) >> tick_shift);
}

// Protocol 4 sends an allocator time (duration_ticks) on a log scale: its
// units of 2^tick_shift ticks as a float of kDurationMantissaBits bits after
// the leading one, exact below 2^(bits + 1) units, above rounded to the
// nearest of 2^bits steps per doubling (within 1/2^(bits + 1), 6.25%: a
// 40 us outlier reads 37.5..42.5 us). A duration tells a slow call from a
// fast one and adds up per frame and per site; the low digits of a long one
// are the clock's noise, and cost a third of its bytes
// (tests/bench/README.md, "Bytes an event").
constexpr uint32_t kDurationMantissaBits = 3;
inline uint32_t DurationCode(uint64_t units, uint32_t bits = kDurationMantissaBits) {
  if (units >> (bits + 1) == 0) return static_cast<uint32_t>(units);
  uint32_t shift = static_cast<uint32_t>(63 - __builtin_clzll(units)) - bits;
  uint64_t q = (units + (uint64_t{1} << (shift - 1))) >> shift;
  if (q >> (bits + 1)) {  // rounded up to the next doubling
    q >>= 1;
    ++shift;
  }
  return (shift + 1) << bits | static_cast<uint32_t>(q & ((1u << bits) - 1));
}
// The units a DurationCode stands for; UINT64_MAX for a code of 2^40 units
// or more (no agent sends one: damage).
inline uint64_t DurationOfCode(uint32_t code, uint32_t bits = kDurationMantissaBits) {
  if (code >> (bits + 1) == 0) return code;
  uint32_t shift = (code >> bits) - 1;
  if (shift > 40 - bits) return UINT64_MAX;
  return (uint64_t{1} << bits | (code & ((1u << bits) - 1))) << shift;
}
// A duration in units as the agent sends it (code) and as a reader gets it
// back (units): never more units than fit 32 bits of ticks, which a reader
// takes for damage.
struct CodedDuration {
  uint32_t code;
  uint32_t units;
};
inline CodedDuration CodeDuration(uint32_t units, uint32_t shift) {
  uint32_t code = DurationCode(units);
  if (DurationOfCode(code) > (UINT32_MAX >> shift)) --code;  // rounded up past the range
  return {code, static_cast<uint32_t>(DurationOfCode(code))};
}

// One batch's time stamps, either end: `ticks` and `end` of the previous
// event, both the batch's base_ticks before the first.
struct TickGaps {
  explicit TickGaps(uint64_t base_ticks) : ticks(base_ticks), end(base_ticks) {}

  // The encoder: the ticks_gap entry of an event at `t` (never below the
  // previous event's: the caller clamps); 0 means "not a gap", and then
  // *exact gets the ticks_exact entry, the plain delta. That happens when
  // the start would come before the previous event's end (a plain rdtsc
  // read early) or before tick 0.
  uint64_t Encode(uint32_t packed_kind, uint64_t t, uint32_t duration, uint64_t* exact) {
    bool after = TickedAfterCall(packed_kind);
    uint64_t start = after ? t - duration : t;
    bool gap = (!after || t >= duration) && start >= end && start - end < UINT64_MAX;
    uint64_t entry = gap ? start - end + 1 : 0;
    if (!gap) *exact = t - ticks;
    Advance(after, t, duration);
    return entry;
  }
  // The decoder: the event's tick from its ticks_gap entry (and, for an
  // entry of 0, its ticks_exact one).
  uint64_t Decode(uint32_t packed_kind, uint32_t duration, uint64_t entry, uint64_t exact) {
    bool after = TickedAfterCall(packed_kind);
    uint64_t t = entry == 0 ? ticks + exact : end + (entry - 1) + (after ? duration : 0);
    Advance(after, t, duration);
    return t;
  }

  uint64_t ticks, end;

 private:
  void Advance(bool after, uint64_t t, uint32_t duration) {
    ticks = t;
    end = after ? t : t + duration;
  }
};

}  // namespace memframe::wire
