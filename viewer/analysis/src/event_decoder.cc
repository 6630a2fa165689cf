#include "event_decoder.h"

#include "memframe/analysis/wire_event.h"

namespace memframe::analysis {

bool DecodeEventBatch(wire::EventBatchDecoder& decoder, const wire::EventBatch& batch, uint16_t thread,
                      uint64_t* last_ticks, uint64_t* backwards, std::vector<Event>* out, std::string* error) {
  thread_local std::vector<wire::PlainEvent> plain;
  plain.clear();
  if (!decoder.Decode(batch, &plain, error)) return false;
  for (const wire::PlainEvent& p : plain) {
    Event e = FromWire(p, thread);
    if (p.ticks < *last_ticks) {
      ++*backwards;
      e.ticks = *last_ticks;
    } else {
      *last_ticks = p.ticks;
    }
    out->push_back(e);
  }
  return true;
}

}  // namespace memframe::analysis
