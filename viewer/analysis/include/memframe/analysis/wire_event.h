// One event as the wire decoder gives it (memframe/event_codec.h), as the
// analysis keeps it. Apart from event.h so that the analysis passes need
// not see the wire's headers.
#pragma once

#include <cstdint>

#include "memframe/analysis/event.h"
#include "memframe/event_codec.h"

namespace memframe::analysis {

inline Event FromWire(const wire::PlainEvent& p, uint16_t thread) {
  Event e;
  e.ticks = p.ticks;
  e.address = p.address;
  e.size = p.size;
  e.stack_id = p.stack_id;
  e.frame = p.frame;
  e.duration_ticks = p.duration;
  e.thread = thread;
  e.packed_kind = static_cast<uint8_t>(p.kind);
  e.heap = p.heap;
  return e;
}

}  // namespace memframe::analysis
