#include "event_decoder.h"

namespace memframe::analysis {

bool DecodeEventBatch(wire::EventBatchDecoder& decoder, const wire::EventBatch& batch, uint16_t thread,
                      uint64_t* last_ticks, uint64_t* backwards, std::vector<Event>* out, std::string* error) {
  thread_local std::vector<wire::PlainEvent> plain;
  plain.clear();
  if (!decoder.Decode(batch, &plain, error)) return false;
  for (const wire::PlainEvent& p : plain) {
    Event e;
    if (p.ticks < *last_ticks) {
      ++*backwards;
      e.ticks = *last_ticks;
    } else {
      e.ticks = p.ticks;
      *last_ticks = p.ticks;
    }
    e.address = p.address;
    e.size = p.size;
    e.stack_id = p.stack_id;
    e.frame = p.frame;
    e.duration_ticks = p.duration;
    e.thread = thread;
    e.packed_kind = static_cast<uint8_t>(p.kind);
    out->push_back(e);
  }
  return true;
}

}  // namespace memframe::analysis
