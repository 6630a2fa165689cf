#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

void Replay(const Stream& stream, std::initializer_list<EventPass*> passes) {
  for (const Event& e : stream.events)
    for (EventPass* pass : passes) pass->OnEvent(e);
}

}  // namespace memframe::analysis
