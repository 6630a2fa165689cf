#include "event_pipeline.h"

namespace memframe::analysis {

class EventPipeline::FrontSink final : public EventSink {
 public:
  FrontSink(EventPipeline* pipeline, EventSink* target) : pipeline_(pipeline), target_(target) {
    block_.reserve(kBlockEvents);
  }
  void Push(const Event& e) override {
    block_.push_back(e);
    if (block_.size() == kBlockEvents) Flush();
  }
  void Flush() {
    if (!block_.empty()) pipeline_->Hand(target_, &block_);
  }

 private:
  EventPipeline* pipeline_;
  EventSink* target_;
  std::vector<Event> block_;
};

EventPipeline::EventPipeline() : thread_([this] { Run(); }) {}

EventPipeline::~EventPipeline() {
  try {
    Drain();
  } catch (...) {
  }
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

EventSink* EventPipeline::Front(EventSink* target) {
  fronts_.push_back(std::make_unique<FrontSink>(this, target));
  return fronts_.back().get();
}

void EventPipeline::Hand(EventSink* target, std::vector<Event>* events) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < kInFlight; });
  queue_.push_back({target, std::move(*events)});
  if (spare_.empty()) {
    *events = {};
    events->reserve(kBlockEvents);
  } else {
    *events = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  changed_.notify_all();
}

void EventPipeline::Drain() {
  for (auto& front : fronts_) front->Flush();
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void EventPipeline::Run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Block block = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool failed = error_ != nullptr;
    lock.unlock();
    changed_.notify_all();
    std::exception_ptr error;
    if (!failed) {  // after a failure the rest is dropped: Drain throws anyway
      try {
        for (const Event& e : block.events) block.target->Push(e);
      } catch (...) {
        error = std::current_exception();
      }
    }
    block.events.clear();
    lock.lock();
    if (error && !error_) error_ = error;
    spare_.push_back(std::move(block.events));
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace memframe::analysis
