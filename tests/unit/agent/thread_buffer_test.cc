#include "buffer/thread_buffer.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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
  // A new thread's first event comes after a frame and a tick epoch record
  // (ring_record.h); the ticks' high bits stay 0 after.
  uint64_t head = seen->head.load(), tail = seen->tail.load();
  ASSERT_EQ(tail - head, 102u);
  RecordReader reader;
  std::vector<Event> events;
  for (uint64_t i = head; i < tail; ++i)
    if (Event e; reader.Read(seen->ring[i & (kRingRecords - 1)], &e)) events.push_back(e);
  ASSERT_EQ(events.size(), 100u);
  for (uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(events[i].ticks, i);
    EXPECT_EQ(events[i].address, 0x1000 + i);
    EXPECT_EQ(events[i].size, i);
    EXPECT_EQ(events[i].kind(), 1u);
  }
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
    for (uint64_t i = 0; i < kRingRecords + 10; ++i) PushEvent(Event{i, i, 1, 0, 0, PackFrameKind(0, 1)});
    b = BufferOfTid(CurrentThreadId());
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->tail.load() - b->head.load(), kRingRecords);
    // The first event's frame and epoch records took two of the slots.
    EXPECT_EQ(b->dropped.load(), 12u);
  });
  worker.join();
}

}  // namespace
}  // namespace memframe::agent
