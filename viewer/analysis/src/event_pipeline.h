// Events handed to their sinks on a thread of their own, in blocks: the
// summary decodes and orders a capture on one core while the heap analysis
// runs on the other (summary_load.h). Each sink gets its events in the
// order they were pushed, every one of them by the time Drain returns: the
// same calls as without the pipeline, so the same figures.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "memframe/analysis/event_sink.h"

namespace memframe::analysis {

class EventPipeline {
 public:
  EventPipeline();
  ~EventPipeline();  // drains; what a sink threw is dropped
  EventPipeline(const EventPipeline&) = delete;
  EventPipeline& operator=(const EventPipeline&) = delete;

  // A sink whose events reach `target` on the pipeline's thread. Owned by
  // the pipeline; `target` must outlive Drain.
  EventSink* Front(EventSink* target);
  // Waits until every event pushed so far reached its target; rethrows the
  // first exception a target threw (std::bad_alloc). Pushing after it is
  // not allowed.
  void Drain();

 private:
  class FrontSink;
  struct Block {
    EventSink* target = nullptr;
    std::vector<Event> events;
  };
  void Hand(EventSink* target, std::vector<Event>* events);
  void Run();

  // Blocks of 16 Ki decoded events (~0.8 MB); at most kInFlight waiting,
  // so the reader runs at most that far ahead of the analysis.
  static constexpr size_t kBlockEvents = 16384;
  static constexpr size_t kInFlight = 4;

  std::vector<std::unique_ptr<FrontSink>> fronts_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Block> queue_;
  std::vector<std::vector<Event>> spare_;
  bool busy_ = false;  // the thread holds a block
  bool closing_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once every member above exists
};

}  // namespace memframe::analysis
