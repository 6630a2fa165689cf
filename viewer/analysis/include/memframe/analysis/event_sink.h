// Where a stream's events go, one at a time, in global order: into the
// compressed store (the whole model) or straight into an analysis that
// keeps only what it prints (summary_load.h).
#pragma once

#include "memframe/analysis/event_store.h"

namespace memframe::analysis {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void Push(const Event& e) = 0;
};

class StoreSink : public EventSink {
 public:
  explicit StoreSink(EventStore* store) : store_(store) {}
  void Push(const Event& e) override { store_->push_back(e); }

 private:
  EventStore* store_;
};

}  // namespace memframe::analysis
