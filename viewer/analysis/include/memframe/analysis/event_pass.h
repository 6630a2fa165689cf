// Analyses are passes over the events of one stream in global order. Each
// pass keeps only what it needs (a live set, per-site counters, ...); how the
// events are stored or streamed from the file is the replay's business, so a
// pass works unchanged whether the capture fits in memory or not.
#pragma once

#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

class EventPass {
 public:
  virtual ~EventPass() = default;
  virtual void OnEvent(const Event& event) = 0;
};

// Feeds every event of `stream`, in global order, to each pass in turn
// (the events are decoded once for all of them).
void Replay(const Stream& stream, const std::vector<EventPass*>& passes);

}  // namespace memframe::analysis
