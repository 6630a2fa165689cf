#include "buffer/thread_buffer.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "resident_pages.h"

namespace memframe::agent {
namespace {

ThreadBuffer* BufferOfTid(uint32_t tid) {
  for (ThreadBuffer* b = FirstBuffer(); b; b = b->next)
    if (b->tid.load() == tid && b->state.load() == static_cast<uint32_t>(BufferState::kActive)) return b;
  return nullptr;
}

// Takes, as the writer would, what gone threads left in their buffers, so
// that a later test in this process (WriterThread.*) finds no events of
// threads it never started. The buffers stay taken: a test here that needs
// a fresh one (TheWriterCommits...) or a given one to be reused gets it.
struct DrainsGoneThreadsBuffers {
  ~DrainsGoneThreadsBuffers() {
    for (ThreadBuffer* b = FirstBuffer(); b; b = b->next) {
      if (b->state.load() != static_cast<uint32_t>(BufferState::kActive) || !BufferThreadGone(b)) continue;
      b->head.store(b->tail.load());
      b->dropped.store(0);
    }
  }
};

TEST(ThreadBuffer, EventsArriveInOrderAndBufferIsReusedOnceTheThreadIsGone) {
  const DrainsGoneThreadsBuffers cleanup;
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
  // Until the next thread stores its own tid, the buffer names no thread:
  // the writer, which skips tid 0, must not find the gone one gone again.
  EXPECT_EQ(seen->tid.load(), 0u);
  ThreadBuffer* reused = nullptr;
  std::thread next([&] {
    PushEvent(Event{1, 2, 3, 0, 0, PackFrameKind(0, 1)});
    reused = BufferOfTid(CurrentThreadId());
  });
  next.join();
  EXPECT_EQ(reused, seen);
}

TEST(ThreadBuffer, FullRingWithoutWriterDropsAndCounts) {
  const DrainsGoneThreadsBuffers cleanup;
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

// The pages that hold ring records [first, end), and how many are resident.
size_t PagesOf(const ThreadBuffer* b, uint64_t first, uint64_t end) {
  return (reinterpret_cast<uintptr_t>(&b->ring[end - 1]) >> 12) - (reinterpret_cast<uintptr_t>(&b->ring[first]) >> 12) + 1;
}
size_t ResidentOf(const ThreadBuffer* b, uint64_t first, uint64_t end) {
  return ResidentPages(&b->ring[first], sizeof(RingRecord) * (end - first));
}

TEST(ThreadBuffer, TheWriterCommitsTheRingsPagesAheadOfTheProducer) {
  const DrainsGoneThreadsBuffers cleanup;
  ThreadBuffer* b = nullptr;
  std::thread worker([&] {
    PushEvent(Event{1, 0x1000, 1, 0, 0, PackFrameKind(0, 1)});
    b = BufferOfTid(CurrentThreadId());
  });
  worker.join();
  ASSERT_NE(b, nullptr);
  constexpr uint64_t kPageRecords = 4096 / sizeof(RingRecord);
  const uint64_t tail = b->tail.load();
  ASSERT_LT(tail, kPageRecords);
  // The thread wrote into its first page only.
  EXPECT_EQ(ResidentOf(b, 2 * kPageRecords, kRingRecords), 0u);
  // A drain that found a few records commits kRingCommitAhead past them.
  CommitRingAhead(b, 0, tail);
  const uint64_t ahead = tail + kRingCommitAhead;
  EXPECT_EQ(b->committed, ahead);
  EXPECT_EQ(ResidentOf(b, 0, ahead), PagesOf(b, 0, ahead));
  EXPECT_EQ(ResidentOf(b, ahead + kPageRecords, kRingRecords), 0u);
  // Fewer than kRingCommitAhead records since the last pass: as far again
  // past the new tail.
  const uint64_t quiet = 3000;
  CommitRingAhead(b, quiet - kRingCommitAhead + 1, quiet);
  EXPECT_EQ(b->committed, quiet + kRingCommitAhead);
  EXPECT_EQ(ResidentOf(b, quiet, quiet + kRingCommitAhead), PagesOf(b, quiet, quiet + kRingCommitAhead));
  EXPECT_EQ(ResidentOf(b, quiet + kRingCommitAhead + kPageRecords, kRingRecords), 0u);
  // kRingCommitAhead records or more: the whole ring (the producer wrote
  // those below its tail itself).
  const uint64_t busy = 10000;
  CommitRingAhead(b, busy - kRingCommitAhead, busy);
  EXPECT_EQ(b->committed, kRingRecords);
  EXPECT_EQ(ResidentOf(b, busy, kRingRecords), PagesOf(b, busy, kRingRecords));
  EXPECT_EQ(ResidentOf(b, quiet + kRingCommitAhead + kPageRecords, busy - kPageRecords), 0u);
}

}  // namespace
}  // namespace memframe::agent
