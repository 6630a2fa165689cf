#include "buffer/thread_buffer.h"

#include <new>

#include "buffer/page_allocator.h"
#include "buffer/thread_os.h"
#include "capture/recorder.h"
#include "capture/recursion_guard.h"
#include "memframe.pb.h"
#include "runtime/diagnostics.h"

namespace memframe::agent {

namespace {
std::atomic<ThreadBuffer*> g_first{nullptr};
std::atomic<bool> g_consumer_alive{false};
std::atomic<bool> g_consumer_running{false};
std::atomic<uint32_t> g_consumer_pid{0};  // the process the writer runs in
bool g_drop_when_full = false;
std::atomic<bool (*)(ThreadBuffer*)> g_ring_helper{nullptr};

__thread ThreadBuffer* t_buffer __attribute__((tls_model("initial-exec"))) = nullptr;
__thread uint32_t t_tid __attribute__((tls_model("initial-exec"))) = 0;

ThreadBuffer* ClaimFreeBuffer() {
  for (ThreadBuffer* b = g_first.load(std::memory_order_acquire); b; b = b->next) {
    uint32_t expected = static_cast<uint32_t>(BufferState::kFree);
    if (b->state.load(std::memory_order_relaxed) == expected &&
        b->state.compare_exchange_strong(expected, static_cast<uint32_t>(BufferState::kActive),
                                         std::memory_order_acquire)) {
      return b;
    }
  }
  return nullptr;
}

ThreadBuffer* NewBuffer() {
  void* memory = MapPages(sizeof(ThreadBuffer));
  if (!memory) return nullptr;
  // Default-initialised: the ring stays untouched (mmap gives zero pages and
  // only the pages a thread fills get committed).
  auto* b = new (memory) ThreadBuffer;
  b->state.store(static_cast<uint32_t>(BufferState::kActive), std::memory_order_relaxed);
  ThreadBuffer* head = g_first.load(std::memory_order_relaxed);
  do {
    b->next = head;
  } while (!g_first.compare_exchange_weak(head, b, std::memory_order_release, std::memory_order_relaxed));
  return b;
}

// Called when a ring is full: true if it is worth waiting for room.
bool WorthWaiting() {
  switch (thread_os::WhoDrains(g_consumer_pid.load(std::memory_order_relaxed),
                               g_consumer_running.load(std::memory_order_acquire))) {
    case thread_os::Drainer::kWriter:
      return true;
    case thread_os::Drainer::kNone:
      // A copy with memory of its own: what it changes here is its own
      // state. It records nothing more and never waits again.
      Debug("not the recording process (a child of a raw fork or clone): not recording it");
      g_recording.store(false, std::memory_order_relaxed);
      g_consumer_alive.store(false, std::memory_order_release);
      return false;
    case thread_os::Drainer::kUnknown:
      // Perhaps shared with the recording process: leave the state alone,
      // drop this one event.
      return false;
  }
  return false;
}
}  // namespace

uint32_t CurrentThreadId() {
  if (!t_tid) t_tid = thread_os::ThisThreadId();
  return t_tid;
}

void SetDropWhenFull(bool drop) { g_drop_when_full = drop; }
void SetRingHelper(bool (*help)(ThreadBuffer* b)) { g_ring_helper.store(help, std::memory_order_release); }
void SetConsumerRunning() { g_consumer_running.store(true, std::memory_order_release); }
void SetConsumerAlive(bool alive) {
  if (alive) g_consumer_pid.store(thread_os::ThisProcessId(), std::memory_order_relaxed);
  g_consumer_alive.store(alive, std::memory_order_release);
}

bool InConsumerProcess() { return g_consumer_pid.load(std::memory_order_relaxed) == thread_os::ThisProcessId(); }

bool ProducerMayWait(bool* checked) {
  if (g_drop_when_full || !g_consumer_alive.load(std::memory_order_acquire)) return false;
  if (*checked) return true;
  *checked = true;
  return WorthWaiting();
}
ThreadBuffer* FirstBuffer() { return g_first.load(std::memory_order_acquire); }

ThreadBuffer* CurrentThreadBuffer() {
  if (t_buffer) return t_buffer;
  ThreadBuffer* b = ClaimFreeBuffer();
  if (!b) b = NewBuffer();
  if (!b) return nullptr;
  b->generation++;
  b->dropped.store(0, std::memory_order_relaxed);
  b->exiting.store(false, std::memory_order_relaxed);
  b->exit_name[0] = '\0';
  b->cached_head = b->head.load(std::memory_order_acquire);
  b->packer = RecordPacker{};  // the new thread's first records say its frame and epoch
  b->stack_memo.Forget();
  // tid last: the writer leaves a buffer of tid 0 alone, and treats a
  // changed (tid, generation) as a new thread.
  b->tid.store(CurrentThreadId(), std::memory_order_release);
  t_buffer = b;
  thread_os::RegisterThreadExit(b);
  return b;
}

namespace {
// A full ring's producer drains it itself, or waits for whoever encodes
// (SetRingHelper); false if there is no helper.
bool HelpDrainOwnRing(ThreadBuffer* b) {
  bool (*help)(ThreadBuffer*) = g_ring_helper.load(std::memory_order_acquire);
  return help && help(b);
}

// PushEvent's rare cases: a thread without its buffer yet, a ring without
// room, an event that takes more than its own record. Apart, so that the
// hook's usual path saves no register (the same arguments: a tail call).
__attribute__((noinline)) void PushEventSlow(uint64_t ticks, uint64_t address, uint64_t size, uint32_t stack_id,
                                             uint32_t duration, uint64_t frame, uint32_t kind, uint32_t heap = 0) {
  const Event event{ticks, address, size, stack_id, duration, PackFrameKind(frame, kind)};
  ThreadBuffer* b = CurrentThreadBuffer();
  if (!b) return;
  uint64_t tail = b->tail.load(std::memory_order_relaxed);
  uint32_t records = b->packer.Count(event, heap);
  if (tail + records - b->cached_head > kRingRecords) {
    b->cached_head = b->head.load(std::memory_order_acquire);
    // Lossless: wait for the writer, as long as there is one (and it is
    // this process's: the check is a system call, made once a wait).
    bool checked = false, may_help = false;
    while (tail + records - b->cached_head > kRingRecords) {
      bool wait = !g_drop_when_full && g_consumer_alive.load(std::memory_order_acquire);
      if (wait && !checked) {
        wait = WorthWaiting();
        checked = true;
        // Only the writer's own process writes to its stream (a vfork
        // child shares the rings, not the right to send).
        may_help = wait && InConsumerProcess();
      }
      if (!wait) {
        b->dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      {
        const uint32_t kind = wire::KindOf(event.kind());
        RingWaitWindow window(kind == wire::EVENT_FREE || kind == wire::EVENT_UNMAP);
        if (!may_help || !HelpDrainOwnRing(b)) thread_os::SleepMicros(50);
      }
      // A signal handler that ran meanwhile may have pushed its own events,
      // and with them a frame or an epoch of its own.
      tail = b->tail.load(std::memory_order_relaxed);
      b->cached_head = b->head.load(std::memory_order_acquire);
      records = b->packer.Count(event, heap);
    }
  }
  b->packer.Write(event, b->ring, tail, kRingRecords - 1, heap);
  b->tail.store(tail + records, std::memory_order_release);
}
}  // namespace

void PushEvent(uint64_t ticks, uint64_t address, uint64_t size, uint32_t stack_id, uint32_t duration, uint64_t frame,
               uint32_t kind) {
  if (ThreadBuffer* b = t_buffer) {
    const uint64_t tail = b->tail.load(std::memory_order_relaxed);
    if (__builtin_expect(b->packer.Plain(ticks, address, size, frame) && tail - b->cached_head < kRingRecords, 1)) {
      b->ring[tail & (kRingRecords - 1)] = RecordPacker::PlainRecord(ticks, address, size, stack_id, duration, kind);
      b->tail.store(tail + 1, std::memory_order_release);
      return;
    }
  }
  PushEventSlow(ticks, address, size, stack_id, duration, frame, kind);
}

void PushHeapEvent(uint64_t ticks, uint64_t address, uint64_t size, uint32_t stack_id, uint32_t duration,
                   uint64_t frame, uint32_t kind, uint32_t heap) {
  PushEventSlow(ticks, address, size, stack_id, duration, frame, kind, heap);
}

void MarkCurrentThreadExiting() {
  if (!t_buffer) return;
  thread_os::KeepExitingThreadName(t_buffer);
  t_buffer->exiting.store(true, std::memory_order_release);
}

bool BufferThreadGone(const ThreadBuffer* b) { return thread_os::ThreadGone(b->tid.load(std::memory_order_relaxed)); }

void ReleaseBuffer(ThreadBuffer* b) {
  // The next thread to claim it is then unnamed until it stores its own tid:
  // the gone thread's tid would have the writer find the buffer gone again
  // and release it under the new thread.
  b->tid.store(0, std::memory_order_relaxed);
  b->state.store(static_cast<uint32_t>(BufferState::kFree), std::memory_order_release);
}

void CommitRingAhead(ThreadBuffer* b, uint64_t head, uint64_t tail) {
  constexpr uintptr_t kPage = 4096;
  if (b->committed >= kRingRecords) return;
  if (tail >= kRingRecords) {  // the producer has been all round: every page was written
    b->committed = kRingRecords;
    return;
  }
  // A thread that wrote kRingCommitAhead records since the last pass goes
  // round its ring within a fraction of a second (and may speed up: a
  // level's first frames): all of it at once.
  const uint64_t ahead = tail - head >= kRingCommitAhead ? kRingRecords : kRingCommitAhead;
  const uint64_t want = tail + ahead < kRingRecords ? tail + ahead : kRingRecords;
  const uint64_t from = b->committed > tail ? b->committed : tail;  // the producer wrote those below tail
  if (want <= from) return;
  // Whole pages: the ring's end rounds up within the buffer's own mapping.
  const uintptr_t begin = reinterpret_cast<uintptr_t>(&b->ring[from]) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(&b->ring[want]) + kPage - 1) & ~(kPage - 1);
  PrefaultPages(reinterpret_cast<void*>(begin), end - begin);
  b->committed = static_cast<uint32_t>(want);
}

void ForgetAllBuffersAfterFork() {
  // The child has one thread; other threads' buffers can never drain.
  // Leak them (they are mmap'd, copy-on-write) and start over.
  g_first.store(nullptr, std::memory_order_relaxed);
  t_buffer = nullptr;
  t_tid = 0;
}

}  // namespace memframe::agent
