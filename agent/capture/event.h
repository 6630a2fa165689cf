// The plain record a hook writes into its thread's buffer. Kept POD and
// small: protobuf is only built from these later, on the writer thread.
#pragma once

#include <cstdint>

namespace memframe::agent {

struct Event {
  uint64_t ticks;     // event clock (see clock.h)
  uint64_t address;
  uint64_t size;
  uint32_t stack_id;  // 0 = no stack
  uint32_t frame;     // frame counter when the event happened
  uint32_t duration;  // ticks spent inside the real function
  uint32_t kind;      // wire::PackKind(EventKind, Family, flags)
};
static_assert(sizeof(Event) == 40);

}  // namespace memframe::agent
