#include "buffer/thread_buffer.h"

#include <gtest/gtest.h>

#include <thread>

namespace memframe::agent {
namespace {

ThreadBuffer* BufferOfTid(uint32_t tid) {
  for (ThreadBuffer* b = FirstBuffer(); b; b = b->next)
    if (b->tid.load() == tid && b->state.load() == static_cast<uint32_t>(BufferState::kActive)) return b;
  return nullptr;
}

TEST(ThreadBuffer, EventsArriveInOrderAndBufferIsReusedOnceTheThreadIsGone) {
  ThreadBuffer* seen = nullptr;
  uint32_t tid = 0;
  std::thread worker([&] {
    for (uint64_t i = 0; i < 100; ++i) PushEvent(Event{i, 0x1000 + i, i, 0, 0, PackFrameKind(0, 1)});
    tid = CurrentThreadId();
    seen = BufferOfTid(tid);
  });
  worker.join();
  ASSERT_NE(seen, nullptr);
  // The thread ran its exit hook and is gone; its events are all there.
  EXPECT_TRUE(seen->exiting.load());
  EXPECT_TRUE(BufferThreadGone(seen));
  uint64_t head = seen->head.load(), tail = seen->tail.load();
  ASSERT_EQ(tail - head, 100u);
  for (uint64_t i = 0; i < 100; ++i) EXPECT_EQ(seen->ring[(head + i) & (kRingEvents - 1)].address, 0x1000 + i);
  // Drained and freed by the writer, it is reused by the next thread.
  seen->head.store(tail);
  ReleaseBuffer(seen);
  ThreadBuffer* reused = nullptr;
  std::thread next([&] {
    PushEvent(Event{1, 2, 3, 0, 0, PackFrameKind(0, 1)});
    reused = BufferOfTid(CurrentThreadId());
  });
  next.join();
  EXPECT_EQ(reused, seen);
}

TEST(ThreadBuffer, FullRingWithoutWriterDropsAndCounts) {
  SetConsumerAlive(false);
  ThreadBuffer* b = nullptr;
  std::thread worker([&] {
    for (uint64_t i = 0; i < kRingEvents + 10; ++i) PushEvent(Event{i, i, 1, 0, 0, PackFrameKind(0, 1)});
    b = BufferOfTid(CurrentThreadId());
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->tail.load() - b->head.load(), kRingEvents);
    EXPECT_EQ(b->dropped.load(), 10u);
  });
  worker.join();
}

}  // namespace
}  // namespace memframe::agent
