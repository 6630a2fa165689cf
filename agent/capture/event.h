// The plain event a hook fills, and the writer's encoder reads back. Kept
// POD: protobuf is only built from these later, on the writer thread. The
// ring keeps each in a smaller record (buffer/ring_record.h).
//
//   ticks    u64   event clock (see clock.h)
//   address  u64
//   size     u64
//   stack_id u32   0 = no stack
//   duration u32   ticks spent inside the real function
//   frame_kind u64 frame << 8 | kind
//                  frame: the frame counter when the event happened, 56 bits
//                  (2^56 frames is two million years at 1000 fps: it never
//                  wraps); kind: wire::PackKind(EventKind, Family, flags),
//                  which fits in 8 bits
#pragma once

#include <cstdint>

#include "memframe/format.h"

namespace memframe::agent {

constexpr int kKindBits = 8;
constexpr uint64_t kKindBitsMask = (uint64_t{1} << kKindBits) - 1;
static_assert(wire::PackKind(wire::kKindMask, wire::kFamilyMask, wire::kFlagRealloc | wire::kFlagCalloc |
                                                                      wire::kFlagCustom) <= kKindBitsMask,
              "a packed kind must fit below the frame number");

constexpr uint64_t PackFrameKind(uint64_t frame, uint32_t kind) { return frame << kKindBits | kind; }

struct Event {
  uint64_t ticks;
  uint64_t address;
  uint64_t size;
  uint32_t stack_id;
  uint32_t duration;
  uint64_t frame_kind;  // PackFrameKind(frame, kind)

  uint64_t frame() const { return frame_kind >> kKindBits; }
  uint32_t kind() const { return static_cast<uint32_t>(frame_kind & kKindBitsMask); }
};
static_assert(sizeof(Event) == 40);

}  // namespace memframe::agent
