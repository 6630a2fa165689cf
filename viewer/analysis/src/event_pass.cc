#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

void Replay(const Stream& stream, const std::vector<EventPass*>& passes) {
  for (const Event& e : stream.events)
    for (EventPass* pass : passes) pass->OnEvent(e);
}

}  // namespace memframe::analysis
