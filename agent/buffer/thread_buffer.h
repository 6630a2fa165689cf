// Per-thread event buffers: one single-producer/single-consumer ring per
// thread. The hook (producer) and the writer thread (consumer) share only the
// ring's two indices, so no lock and no cache line is shared between game
// threads on the allocation path.
//
// Buffers are never unmapped: when a thread has exited, the writer drains
// its buffer and marks it free, and the next new thread reuses it. That keeps
// the registry a push-only lock-free list.
//
// A thread keeps its buffer until the kernel says it is gone: destructors
// that run after our thread-exit hook (other TLS destructors, glibc's own
// clean-up) still allocate, and their events must stay in the same buffer
// to stay in order.
#pragma once

#include <atomic>
#include <cstdint>

#include "buffer/ring_record.h"
#include "capture/event.h"
#include "capture/recent_stacks.h"
#include "capture/stack_capture.h"

namespace memframe::agent {

// Records a ring holds: one an event, and now and then one of the ring's own
// (ring_record.h). 1.5 MiB a thread; ~10 ms of a very busy thread. Smaller
// rings fill and stall busy games (tests/bench/README.md, "Resident memory").
constexpr uint32_t kRingRecords = 1u << 16;

enum class BufferState : uint32_t { kFree = 0, kActive = 1 };

struct alignas(64) ThreadBuffer {
  // Consumer side.
  alignas(64) std::atomic<uint64_t> head{0};
  RecordReader reader;          // the writer's: where its reading of the records stands
  uint32_t committed = 0;       // the writer's: ring records [0, committed) are resident
  // Producer side.
  alignas(64) std::atomic<uint64_t> tail{0};
  uint64_t cached_head = 0;     // producer's last look at head
  RecordPacker packer;          // producer's: the frame and tick epoch its last records said
  std::atomic<uint64_t> dropped{0};
  RecentStacks recent_stacks;   // producer's: stacks it interned last (ids are global, so they
                                // stay right for a thread that reuses the buffer)
  StackMemo stack_memo;         // producer's: its last walks (forgotten when another thread takes
                                // the buffer: they read the old thread's stack)

  alignas(64) std::atomic<uint32_t> state{static_cast<uint32_t>(BufferState::kFree)};
  std::atomic<uint32_t> tid{0};
  std::atomic<bool> exiting{false};  // the thread ran its exit hook; check soon whether it is gone
  char exit_name[16] = {};           // the thread's name as it exited (/proc is gone by the time the writer looks)
  uint32_t generation = 0;      // bumped on every reuse, so the writer sees a new thread
  ThreadBuffer* next = nullptr; // registry link, immutable once published

  RingRecord ring[kRingRecords];
};

// What to do when a ring is full: wait for the writer (lossless, the
// default) or drop the event and count it.
void SetDropWhenFull(bool drop);

// The calling thread's buffer, created or reused on first use; null if no
// memory could be had (the event is then dropped).
ThreadBuffer* CurrentThreadBuffer();

// Appends one event to the calling thread's buffer (its records:
// ring_record.h). Its fields one by one: the hook's values go straight from
// registers into the record.
void PushEvent(uint64_t ticks, uint64_t address, uint64_t size, uint32_t stack_id, uint32_t duration, uint64_t frame,
               uint32_t kind);
inline void PushEvent(const Event& e) {
  PushEvent(e.ticks, e.address, e.size, e.stack_id, e.duration, e.frame(), e.kind());
}
// The same for a block of a private heap (ring_record.h, kRecordHeap): the
// heap's allocator id goes in a record of its own before the event's.
void PushHeapEvent(uint64_t ticks, uint64_t address, uint64_t size, uint32_t stack_id, uint32_t duration,
                   uint64_t frame, uint32_t kind, uint32_t heap);

// A producer whose ring is full, and who may wait for the writer, calls
// `help` (the writer's, set while it runs) instead of sleeping: it encodes
// the ring into the writer's stream itself if nobody else is encoding at
// that instant, else waits until they are done (bounded: never behind a
// thread that could be stuck), and returns false if it did neither. When
// threads outnumber cores, a writer that gets its share of the machine
// drains too slowly for all of them (tests/bench/README.md, "Threads
// beyond the cores").
void SetRingHelper(bool (*help)(ThreadBuffer* b));

// Called from the thread-exit path: asks the writer to look for the
// thread's end soon.
void MarkCurrentThreadExiting();

// Writer side: true once the buffer's thread no longer exists.
bool BufferThreadGone(const ThreadBuffer* b);
// Writer side, after the final drain: lets a new thread reuse the buffer.
void ReleaseBuffer(ThreadBuffer* b);
// Writer side, once a pass, with the producer at `tail` and the writer at
// `head`: makes the ring's pages resident ahead of the producer,
// kRingCommitAhead records (24 KiB) for a thread that allocates little, the
// whole ring once it wrote that many since the last pass. A thread fills
// its ring's fresh pages in its first ~64 Ki events; each cost it a page
// fault mid-frame, 384 a thread.
constexpr uint32_t kRingCommitAhead = kRingRecords / 64;
void CommitRingAhead(ThreadBuffer* b, uint64_t head, uint64_t tail);

// Fork child: the buffers belong to the parent's threads; forget them.
void ForgetAllBuffersAfterFork();

// Writer side.
ThreadBuffer* FirstBuffer();
// Whether a writer drains the buffers (producers wait for room only then).
// Alive also notes the calling process as the writer's.
void SetConsumerAlive(bool alive);
// Called by the writer's thread once it runs. Before that, where a writer
// created under the loader lock cannot start until the loader lets go of it
// (Windows, the agent started by its DllMain), a full ring drops its events
// rather than wait on a writer that cannot come.
void SetConsumerRunning();
// False in a copy of the process made by a raw fork or clone system call, or
// in a vfork child: the writer is another process's. One system call, so for
// the wait and stop paths, never per event.
bool InConsumerProcess();

uint32_t CurrentThreadId();

// For a producer whose queue is full (the rings', the GPU events'): whether
// to wait for the writer (lossless and a writer of this process drains)
// rather than drop. `*checked` starts false for each wait: the first call
// of a wait makes the one system call that tells who drains.
bool ProducerMayWait(bool* checked);

}  // namespace memframe::agent
