// One decoded event: the unit every analysis pass sees.
#pragma once

#include <cstdint>

namespace memframe::analysis {

enum class EventKind : uint8_t { kNone = 0, kAlloc = 1, kFree = 2, kFrameEnd = 3, kMap = 4, kUnmap = 5, kMarker = 6,
                                   kAllocatorRelease = 7 };
enum class Family : uint8_t { kMalloc = 0, kNew = 1, kNewArray = 2, kMmap = 3 };

// One decoded event. Times stay in ticks and are converted on output. A
// stream stores its events compressed (event_store.h); this plain form is
// what a pass reads, one at a time.
struct Event {
  uint64_t ticks = 0;
  uint64_t address = 0;   // FRAME_END: marker id of the present entry point; ALLOCATOR_RELEASE: the mark
  uint64_t size = 0;      // FRAME_END: number of the frame that ended; MARKER: marker id; ALLOCATOR_RELEASE: allocator id
  uint64_t frame = 0;     // the frame the event happened in (frame_range.h: any 64-bit number)
  uint32_t stack_id = 0;  // 0 = no stack
  uint32_t duration_ticks = 0;
  uint16_t thread = 0;    // index into Stream::threads
  uint8_t packed_kind = 0;  // EventKind | Family << 3 | flags, exactly as on the wire (format.h)
  uint32_t heap = 0;        // ALLOC: the private heap's allocator id (AllocatorKind::kHeap), else 0

  EventKind kind() const { return static_cast<EventKind>(packed_kind & 0x7); }
  Family family() const { return static_cast<Family>((packed_kind >> 3) & 0x3); }
  bool is_realloc() const { return packed_kind & (1u << 5); }
  bool is_calloc() const { return packed_kind & (1u << 6) && !is_custom(); }
  // A block of the game's own allocator (annotate.h), and, on its FREE, one
  // the reader made for an ALLOCATOR_RELEASE (wire::kFlagReleased).
  bool is_custom() const { return packed_kind & (1u << 7); }
  bool is_released() const { return kind() == EventKind::kFree && is_custom() && (packed_kind & (1u << 6)); }
};
// 48 bytes with the 64-bit frame; only decoded chunks and batches are plain
// Events, the store keeps them column-coded (event_store.h).
static_assert(sizeof(Event) <= 48, "decoded chunks hold kChunkEvents of these per reader; keep it small");

}  // namespace memframe::analysis
