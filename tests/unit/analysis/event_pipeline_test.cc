// EventPipeline (event_pipeline.h): every event reaches its own sink, in the
// order pushed, across many blocks and several sinks at once; what a sink
// throws comes out of Drain.
#include "event_pipeline.h"

#include <gtest/gtest.h>

#include <new>
#include <vector>

namespace memframe::analysis {
namespace {

class Recorder final : public EventSink {
 public:
  void Push(const Event& e) override { addresses.push_back(e.address); }
  std::vector<uint64_t> addresses;
};

class Thrower final : public EventSink {
 public:
  explicit Thrower(uint64_t after) : after_(after) {}
  void Push(const Event&) override {
    if (++seen_ > after_) throw std::bad_alloc();
  }

 private:
  uint64_t after_;
  uint64_t seen_ = 0;
};

Event At(uint64_t address) {
  Event e;
  e.address = address;
  return e;
}

TEST(EventPipeline, EverySinkGetsItsEventsInOrder) {
  Recorder a, b;
  // Many blocks of 16 Ki, the two sinks interleaved unevenly, ends not on
  // a block boundary.
  constexpr uint64_t kEvents = 200'003;
  {
    EventPipeline pipeline;
    EventSink* to_a = pipeline.Front(&a);
    EventSink* to_b = pipeline.Front(&b);
    for (uint64_t i = 1; i <= kEvents; ++i) {
      to_a->Push(At(i));
      if (i % 3 == 0) to_b->Push(At(i));
    }
    pipeline.Drain();
    ASSERT_EQ(a.addresses.size(), kEvents);
    ASSERT_EQ(b.addresses.size(), kEvents / 3);
  }
  for (uint64_t i = 0; i < a.addresses.size(); ++i) ASSERT_EQ(a.addresses[i], i + 1) << i;
  for (uint64_t i = 0; i < b.addresses.size(); ++i) ASSERT_EQ(b.addresses[i], 3 * (i + 1)) << i;
}

TEST(EventPipeline, DrainHandsOnWhatWasPushedSoFar) {
  Recorder a;
  EventPipeline pipeline;
  EventSink* to_a = pipeline.Front(&a);
  to_a->Push(At(7));
  pipeline.Drain();
  EXPECT_EQ(a.addresses, std::vector<uint64_t>{7});
  to_a->Push(At(8));
  pipeline.Drain();
  EXPECT_EQ(a.addresses, (std::vector<uint64_t>{7, 8}));
}

TEST(EventPipeline, WhatASinkThrowsComesOutOfDrain) {
  Thrower thrower(50'000);
  EventPipeline pipeline;
  EventSink* front = pipeline.Front(&thrower);
  // Far more than the blocks in flight: the reader must not wait forever
  // on a sink that failed.
  for (uint64_t i = 0; i < 1'000'000; ++i) front->Push(At(i));
  EXPECT_THROW(pipeline.Drain(), std::bad_alloc);
}

}  // namespace
}  // namespace memframe::analysis
