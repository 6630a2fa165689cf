#include "memframe/event_codec.h"

#include <algorithm>

#include "memframe/event_refs.h"
#include "memframe/format.h"

namespace memframe::wire {

namespace {

std::string BatchError(const EventBatch& b, const std::string& what) {
  return "corrupt batch of thread " + std::to_string(b.thread_id()) + ": " + what;
}

// Entries a column of a version-2 batch must have, given its kinds.
struct ColumnCounts {
  int frees = 0, allocs = 0, gaps_escaped = 0, referenced = 0;
};

}  // namespace

// The decoder's half of event_refs.h: the addresses and sizes of the
// stream's last kFreeRefWindow allocations, by serial.
struct EventBatchDecoder::State {
  struct Block {
    uint64_t address, size;
  };
  Block recent[kFreeRefWindow];
  uint64_t serial = 0;
  RecentlyFreed freed;
  State() { freed.Clear(); }
};

EventBatchDecoder::EventBatchDecoder(uint32_t protocol_version) : version_(protocol_version) {
  if (version_ >= 2) state_ = std::make_unique<State>();
}
EventBatchDecoder::~EventBatchDecoder() = default;

bool EventBatchDecoder::Decode(const EventBatch& batch, std::vector<PlainEvent>* out, std::string* error) {
  if (broken_) {
    *error = BatchError(batch, "follows a damaged batch");
    return false;
  }
  size_t before = out->size();
  if (DecodeColumns(batch, out, error)) return true;
  out->resize(before);
  broken_ = state_ != nullptr;
  return false;
}

void EventBatchDecoder::SaveState(WindowStart* out) const {
  if (!state_) return;
  const uint64_t kept = std::min<uint64_t>(state_->serial, kFreeRefWindow);
  out->set_serial(state_->serial);
  for (uint64_t s = state_->serial - kept + 1; s <= state_->serial; ++s) {
    const State::Block& block = state_->recent[s % kFreeRefWindow];
    out->add_recent_address(block.address);
    out->add_recent_size(block.size);
  }
  for (uint32_t c = 0; c < kSizeClasses; ++c) {
    for (uint32_t k = 0; k < state_->freed.CountOf(c); ++k) {
      out->add_freed_class(c);
      out->add_freed_address(state_->freed.BlockOf(c, k));
    }
  }
}

bool EventBatchDecoder::RestoreState(const WindowStart& in, std::string* error) {
  const uint64_t kept = std::min<uint64_t>(in.serial(), kFreeRefWindow);
  auto refuse = [error](const std::string& why) {
    *error = "corrupt window start: " + why;
    return false;
  };
  if (!state_) {
    if (in.serial() || in.recent_address_size() || in.freed_class_size()) return refuse("a version 1 stream has none");
    return true;
  }
  if (static_cast<uint64_t>(in.recent_address_size()) != kept || in.recent_size_size() != in.recent_address_size())
    return refuse(std::to_string(in.recent_address_size()) + " recent blocks for " + std::to_string(in.serial()) +
                  " allocations");
  if (in.freed_class_size() != in.freed_address_size()) return refuse("freed columns differ in length");
  auto fresh = std::make_unique<State>();
  fresh->serial = in.serial();
  for (uint64_t i = 0; i < kept; ++i)
    fresh->recent[(in.serial() - kept + 1 + i) % kFreeRefWindow] = {in.recent_address(static_cast<int>(i)),
                                                                     in.recent_size(static_cast<int>(i))};
  for (int i = 0; i < in.freed_class_size(); ++i) {
    const uint32_t c = in.freed_class(i);
    if (c >= kSizeClasses || fresh->freed.CountOf(c) == kFreedPerClass) return refuse("a freed block out of range");
    fresh->freed.PushOfClass(c, in.freed_address(i));
  }
  state_ = std::move(fresh);
  return true;
}

bool EventBatchDecoder::DecodeColumns(const EventBatch& b, std::vector<PlainEvent>* out, std::string* error) {
  const int n = b.kind_size();
  const bool v1 = version_ < 2;
  const bool v3 = version_ >= 3;
  const bool v4 = version_ >= 4;
  const bool v5 = version_ >= 5;
  auto mismatch = [&](const char* column, int have, int want) {
    std::string expected = want == n ? "" : " (" + std::to_string(want) + " expected)";
    *error = BatchError(b, std::to_string(n) + " kinds but " + std::to_string(have) + " " + column + " entries" +
                               expected);
    return false;
  };
  if (static_cast<uint32_t>(n) > kMaxBatchEvents) {
    *error = BatchError(b, std::to_string(n) + " events (at most " + std::to_string(kMaxBatchEvents) + ")");
    return false;
  }
  if (b.frame_delta_size() != n) return mismatch("frame_delta", b.frame_delta_size(), n);
  if (b.duration_ticks_size() != n) return mismatch("duration_ticks", b.duration_ticks_size(), n);
  ColumnCounts want;
  if (v1) {
    if (b.size_size() != n) return mismatch("size", b.size_size(), n);
    if (b.stack_id_size() != n) return mismatch("stack_id", b.stack_id_size(), n);
    if (b.address_delta_size() != n) return mismatch("address_delta", b.address_delta_size(), n);
    if (b.ticks_delta_size() != n) return mismatch("ticks_delta", b.ticks_delta_size(), n);
  } else {
    if (b.ticks_gap_size() != n) return mismatch("ticks_gap", b.ticks_gap_size(), n);
    for (int i = 0; i < n; ++i) {
      uint32_t kind = KindOf(b.kind(i));
      want.frees += kind == EVENT_FREE;
      want.allocs += kind == EVENT_ALLOC;
      want.gaps_escaped += b.ticks_gap(i) == 0;
    }
    // Version 3 sends a FREE's size and stack in columns of their own, each
    // left out when all zero.
    const int sized = v3 ? n - want.frees : n;
    if (b.size_size() != sized) return mismatch("size", b.size_size(), sized);
    if (b.stack_id_size() != sized) return mismatch("stack_id", b.stack_id_size(), sized);
    if (b.free_size_size() != 0 && b.free_size_size() != want.frees)
      return mismatch("free_size", b.free_size_size(), want.frees);
    if (b.free_stack_size() != 0 && b.free_stack_size() != want.frees)
      return mismatch("free_stack", b.free_stack_size(), want.frees);
    if (b.tick_shift() > kMaxTickShift || b.duration_shift() > kMaxTickShift) {
      const bool ticks = b.tick_shift() > kMaxTickShift;
      *error = BatchError(b, std::string(ticks ? "tick_shift " : "duration_shift ") +
                                 std::to_string(ticks ? b.tick_shift() : b.duration_shift()) + " (at most " +
                                 std::to_string(kMaxTickShift) + ")");
      return false;
    }
    if (b.free_ref_size() != want.frees) return mismatch("free_ref", b.free_ref_size(), want.frees);
    if (b.reuse_ref_size() != want.allocs) return mismatch("reuse_ref", b.reuse_ref_size(), want.allocs);
    if (b.ticks_exact_size() != want.gaps_escaped)
      return mismatch("ticks_exact", b.ticks_exact_size(), want.gaps_escaped);
    for (uint32_t ref : b.free_ref()) want.referenced += ref != 0;
    for (uint32_t ref : b.reuse_ref()) want.referenced += ref != 0;
    if (b.address_delta_size() != n - want.referenced)
      return mismatch("address_delta", b.address_delta_size(), n - want.referenced);
  }
  // Any version may carry the heap column (left out when all 0).
  int allocs = 0;
  for (int i = 0; i < n; ++i) allocs += KindOf(b.kind(i)) == EVENT_ALLOC;
  if (b.heap_size() != 0 && b.heap_size() != allocs) return mismatch("heap", b.heap_size(), allocs);
  // Frame numbers are any 64-bit values; what cannot be right is one that
  // wraps past 2^64 while the deltas are added up.
  {
    uint64_t f = b.base_frame();
    for (int i = 0; i < n; ++i) {
      if (__builtin_add_overflow(f, uint64_t{b.frame_delta(i)}, &f)) {
        *error = BatchError(b, "a frame number past 2^64 (base " + std::to_string(b.base_frame()) + ")");
        return false;
      }
    }
  }
  // Addresses restart from 0 in every batch; ticks and frames from the
  // batch's bases.
  uint64_t address = 0, frame = b.base_frame();
  // Time stamps in units of 2^shift ticks (version 3 on), durations in units
  // of 2^duration_shift (version 5; before, the time stamps' unit).
  const uint32_t shift = v3 ? b.tick_shift() : 0;
  const uint32_t duration_shift = v5 ? b.duration_shift() : shift;
  TickGaps gaps(b.base_ticks() >> shift);
  int next_address = 0, next_free = 0, next_alloc = 0, next_exact = 0, next_sized = 0, next_heap = 0;
  for (int i = 0; i < n; ++i) {
    PlainEvent e;
    e.kind = b.kind(i);
    const bool free_column = v3 && KindOf(e.kind) == EVENT_FREE;
    if (free_column) {
      e.size = b.free_size_size() ? b.free_size(next_free) : 0;
      e.stack_id = b.free_stack_size() ? b.free_stack(next_free) : 0;
    } else {
      e.size = b.size(next_sized);
      e.stack_id = b.stack_id(next_sized++);
    }
    // The duration in ticks (version 1, 2), in units (3), or its units'
    // log-scale code (4 on: event_refs.h DurationCode).
    e.duration = b.duration_ticks(i);
    if (v4) {
      const uint64_t units = DurationOfCode(e.duration);
      if (units > UINT32_MAX >> duration_shift) {
        *error = BatchError(b, "duration code " + std::to_string(e.duration) + " past the clock's range");
        return false;
      }
      e.duration = static_cast<uint32_t>(units);
    } else if (v3 && e.duration > UINT32_MAX >> duration_shift) {
      *error = BatchError(b, "a duration past the clock's range");
      return false;
    }
    frame += b.frame_delta(i);
    e.frame = frame;
    if (KindOf(e.kind) == EVENT_ALLOC && b.heap_size()) e.heap = b.heap(next_heap++);
    if (v1) {
      gaps.ticks += b.ticks_delta(i);
      e.ticks = gaps.ticks;
      address += static_cast<uint64_t>(b.address_delta(i));
      e.address = address;
      out->push_back(e);
      continue;
    }
    uint64_t gap = b.ticks_gap(i);
    const uint32_t gap_duration = v5 ? DurationInTickUnits(e.duration, duration_shift, shift) : e.duration;
    e.ticks = gaps.Decode(e.kind, gap_duration, gap, gap == 0 ? b.ticks_exact(next_exact++) : 0);
    if (e.ticks > UINT64_MAX >> shift) {
      *error = BatchError(b, "a time stamp past the clock's range");
      return false;
    }
    e.ticks <<= shift;
    e.duration <<= duration_shift;
    const uint32_t kind = KindOf(e.kind);
    uint64_t ref = kind == EVENT_FREE ? b.free_ref(next_free++) : kind == EVENT_ALLOC ? b.reuse_ref(next_alloc++) : 0;
    if (ref == 0) {
      address += static_cast<uint64_t>(b.address_delta(next_address++));
    } else if (kind == EVENT_FREE) {
      if (ref > state_->serial || ref > kFreeRefWindow) {
        *error = BatchError(b, "free_ref " + std::to_string(ref) + " names no allocation");
        return false;
      }
      const State::Block& block = state_->recent[(state_->serial - ref + 1) % kFreeRefWindow];
      address = block.address;
      state_->freed.Push(block.size, address);
    } else if (!state_->freed.Take(e.size, ref, &address)) {
      *error = BatchError(b, "reuse_ref " + std::to_string(ref) + " names no freed block");
      return false;
    }
    e.address = address;
    if (kind == EVENT_ALLOC) state_->recent[++state_->serial % kFreeRefWindow] = {address, e.size};
    out->push_back(e);
  }
  return true;
}

}  // namespace memframe::wire
