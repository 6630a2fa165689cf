#include "writer/writer_thread.h"

#include <pthread.h>  // on Windows, winpthreads (linked statically)
#include <sched.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
#include <cstdint>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "buffer/page_allocator.h"
#include "buffer/thread_buffer.h"
#include "capture/allocator_table.h"
#include "capture/clock.h"
#include "capture/fast_unwinder.h"
#include "capture/recorder.h"
#include "capture/marker_table.h"
#include "capture/stack_table.h"
#include "gpu/gpu_queue.h"
#include "runtime/diagnostics.h"
#include "memframe/format.h"
#include "writer/module_map.h"
#include "buffer/thread_os.h"
#include "os_signals.h"  // agent/platform/<os>/: AllSignalsBlocked

namespace memframe::agent {

namespace {
// Ring records per EventBatch at most (a ring's wrap-around also ends one). Large
// batches compress better and cost the recorder less: each large column ends
// a zstd block there (capture_file.cc). On the benchmark workload 32 Ki took
// 13% less recorder CPU and 2% fewer capture bytes than 8 Ki.
constexpr int kMaxBatchRecords = 32768;
constexpr uint64_t kModuleCheckNs = 100'000'000;
constexpr uint64_t kSlowWorkNs = 1'000'000'000;  // clock sync, thread names
constexpr uint64_t kBurstRecords = kRingRecords / 4;  // in one pass: come back soon
constexpr uint64_t kPrefaultChunkBytes = 4ull << 20;
constexpr size_t kWriterStackBytes = 512u << 10;

SocketSink* g_sink = nullptr;
pthread_t g_thread;
std::atomic<bool> g_stop{false};
std::atomic<bool> g_done{false};
// Set once, by the first StopWriter, before g_stop: the writer reads it
// after it sees g_stop, and a second caller must not change it under it.
std::atomic<const char*> g_stop_reason{nullptr};
uint64_t g_events_total = 0;
// SyncWithWriter: requests counted up by callers, completions by the writer.
std::atomic<uint64_t> g_sync_requested{0};
std::atomic<uint64_t> g_sync_done{0};
uint32_t g_markers_sent = 0;  // marker ids below this were defined
uint32_t g_allocators_sent = 1;  // allocator ids below this were defined
uint64_t g_slice_ns = 0;
void (*g_final_packets)(SocketSink&) = nullptr;
bool (*g_modules_loaded)() = nullptr;
bool g_modules_pending = false;  // g_modules_loaded asked to be called again
uint64_t g_dropped_total = 0;
bool g_send_failed = false;  // a flush within a pass failed: the recorder is gone

// Who encodes into the stream: the writer's pass, or a producer draining its
// own full ring (HelpDrain). Everything that touches the sink or the
// encoder's state is done holding it. A producer only ever tries it, and
// waits (bounded) for it to be let go; the writer, the one thread that
// waits until it has it, waits for one ring's drain at most.
std::atomic<uint32_t> g_encoding{0};
std::atomic<uint32_t> g_encoding_waiters{0};
constexpr long kEncodingWaitNs = 1'000'000;
bool TryLockEncoding() {
  return g_encoding.load(std::memory_order_relaxed) == 0 && g_encoding.exchange(1, std::memory_order_acquire) == 0;
}
// Until the encoding is let go, or `ns` passed. A futex on Linux: threads
// whose rings are full sleep until a drain ends rather than wake every few
// microseconds (64 threads on 2 cores spent most of their time switching).
void WaitForEncoding(long ns) {
  g_encoding_waiters.fetch_add(1);
  timespec ts{0, ns};
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&g_encoding), FUTEX_WAIT_PRIVATE, 1u, &ts, nullptr, 0);
#else
  nanosleep(&ts, nullptr);
#endif
  g_encoding_waiters.fetch_sub(1);
}
void LockEncoding() {
  while (!TryLockEncoding()) WaitForEncoding(kEncodingWaitNs);
}
void UnlockEncoding() {
  g_encoding.store(0);
#ifdef __linux__
  // Every waiter: each checks its own ring, which this drain may have emptied.
  if (g_encoding_waiters.load())
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&g_encoding), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
#endif
}

// Sends what is buffered if it is a lot already: a pass over every ring
// (a burst's stack definitions) is not buffered whole, so only about
// kFlushAfterBytes of the output buffer is touched (socket_sink.h).
void FlushIfFull() {
  if (!g_send_failed && !g_sink->FlushIfFull()) g_send_failed = true;
}

// Stack ids already sent (one bit each): a stack is defined once, right
// before the first batch that uses it.
uint64_t* g_sent_stacks = nullptr;
constexpr uint64_t kSentStackBits = 1ull << 22;
uint32_t* g_pending_ids = nullptr;

// What the writer remembers about each buffer it has seen.
struct BufferView {
  ThreadBuffer* buffer;
  uint32_t tid;
  uint32_t generation;
  char name[16];
};
constexpr int kMaxViews = 4096;
BufferView* g_views = nullptr;
int g_view_count = 0;

bool StackSent(uint32_t id) { return id < kSentStackBits && (g_sent_stacks[id >> 6] >> (id & 63)) & 1; }
void MarkStackSent(uint32_t id) {
  if (id < kSentStackBits) g_sent_stacks[id >> 6] |= 1ull << (id & 63);
}

BufferView* ViewOf(ThreadBuffer* b) {
  for (int i = 0; i < g_view_count; ++i)
    if (g_views[i].buffer == b) return &g_views[i];
  if (g_view_count == kMaxViews) return nullptr;
  BufferView* v = &g_views[g_view_count++];
  v->buffer = b;
  v->tid = 0;
  v->generation = 0;
  return v;
}

// Sends the stack definitions these records' events need, then the events
// (the ring's own records carry stack id 0). Returns the events sent.
// Notes a stack the next packet uses; the ones not sent yet gather in
// g_pending_ids until SendPendingStacks.
void NoteStack(uint32_t id, int* pending) {
  if (id && !StackSent(id)) {
    MarkStackSent(id);
    g_pending_ids[(*pending)++] = id;
  }
}

void SendPendingStacks(int pending) {
  if (pending) {
    EncodeStackDefs(*g_sink, g_pending_ids, pending);
    FlushIfFull();
  }
}

// The allocators declared since the last time, after the stacks they were
// made at (a private heap's HeapCreate: allocator_table.h) that no event
// has sent yet.
void SendAllocatorDefs(SocketSink& sink, uint32_t first, uint32_t end) {
  int pending = 0;
  for (uint32_t id = first; id < end; ++id) {
    const uint32_t stack = AllocatorAt(id).origin.stack_id;
    if (stack && !StackSent(stack)) {
      MarkStackSent(stack);
      g_pending_ids[pending++] = stack;  // at most 256 allocators: far below kMaxBatchRecords
    }
  }
  if (pending) EncodeStackDefs(sink, g_pending_ids, pending);
  EncodeAllocatorDefs(sink, first, end);
}

uint64_t SendBatch(uint32_t tid, const RingRecord* records, int count, uint64_t dropped, RecordReader* reader) {
  int pending = 0;
  for (int i = 0; i < count; ++i) NoteStack(records[i].stack_id, &pending);
  SendPendingStacks(pending);
  uint32_t marker_end = MarkerEnd();
  if (marker_end > g_markers_sent) {
    EncodeMarkerDefs(*g_sink, g_markers_sent, marker_end);
    g_markers_sent = marker_end;
  }
  uint32_t allocator_end = AllocatorEnd();
  if (allocator_end > g_allocators_sent) {
    SendAllocatorDefs(*g_sink, g_allocators_sent, allocator_end);
    g_allocators_sent = allocator_end;
  }
  const uint64_t events = EncodeEventBatch(*g_sink, tid, records, count, dropped, reader);
  FlushIfFull();
  g_events_total += events;
  if (events) g_dropped_total += dropped;
  return events;
}

// Drains one buffer; returns the number of records taken. `yield`: give the
// core back between batches (the writer's pass, not a producer's help).
uint64_t DrainBuffer(ThreadBuffer* b, bool yield) {
  BufferView* view = ViewOf(b);
  uint32_t tid = b->tid.load(std::memory_order_acquire);
  if (view && (view->tid != tid || view->generation != b->generation)) {
    view->tid = tid;
    view->generation = b->generation;
    thread_os::ReadThreadName(tid, view->name, sizeof(view->name));
    EncodeThreadInfo(*g_sink, tid, view->name, Ticks(), false);
  }
  uint64_t head = b->head.load(std::memory_order_relaxed);
  uint64_t tail = b->tail.load(std::memory_order_acquire);
  uint64_t taken = 0;
  while (head < tail) {
    // A batch is a contiguous run of the ring: stop at the wrap-around.
    uint64_t start = head & (kRingRecords - 1);
    uint64_t run = tail - head;
    if (run > kRingRecords - start) run = kRingRecords - start;
    if (run > kMaxBatchRecords) run = kMaxBatchRecords;
    uint64_t dropped = b->dropped.exchange(0, std::memory_order_relaxed);
    // A run of the ring's own records only (the rest of an event's records
    // are past the wrap-around) sends nothing: its drops go with the next.
    if (!SendBatch(tid, &b->ring[start], static_cast<int>(run), dropped, &b->reader) && dropped)
      b->dropped.fetch_add(dropped, std::memory_order_relaxed);
    head += run;
    taken += run;
    b->head.store(head, std::memory_order_release);
    // A batch is under a millisecond of work. When every core runs a game
    // thread, the one this drain displaced gets its core back now rather
    // than at the end of the drain: threads that meet every frame (a job
    // system's barrier) wait less for it, and the drain goes on where a core
    // is free. Two busy threads on 2 cores: added wall -3..-7% (lifo with
    // two simulation threads, runs alternating with and without the yield).
    if (yield) sched_yield();
  }
  return taken;
}

// The queued GPU events, after the heap's (a GPU event names its frame and
// time; a reader places it by those, not by its packet's place).
GpuRecord* g_gpu_records = nullptr;
constexpr int kMaxGpuRecords = 1024;  // kMaxBatchRecords stacks at most: g_pending_ids holds them
uint64_t g_gpu_dropped = 0;

void DrainGpuEvents() {
  for (;;) {
    const int count = TakeGpuRecords(g_gpu_records, kMaxGpuRecords, &g_gpu_dropped);
    if (count == 0 && g_gpu_dropped == 0) return;
    int pending = 0;
    for (int i = 0; i < count; ++i) NoteStack(g_gpu_records[i].stack_id, &pending);
    SendPendingStacks(pending);
    EncodeGpuEvents(*g_sink, g_gpu_records, count, g_gpu_dropped);
    g_dropped_total += g_gpu_dropped;
    g_events_total += static_cast<uint64_t>(count);
    g_gpu_dropped = 0;
    FlushIfFull();
    if (count < kMaxGpuRecords) return;
  }
}

// `check_exits`: also look for threads that are gone (every buffer whose
// thread ran its exit hook, and now and then every buffer).
uint64_t DrainAll(bool check_all_exits) {
  uint64_t taken = 0;
  for (ThreadBuffer* b = FirstBuffer(); b; b = b->next) {
    if (b->state.load(std::memory_order_acquire) == static_cast<uint32_t>(BufferState::kFree)) continue;
    // Tid 0: a thread is claiming the buffer and has not said who it is yet
    // (it sets up the buffer's fields meanwhile, and pushes nothing before).
    if (b->tid.load(std::memory_order_acquire) == 0) continue;
    bool check = check_all_exits || b->exiting.load(std::memory_order_acquire);
    // Gone is decided before the drain: a gone thread pushed its last event
    // before it died, so this drain takes them all.
    bool gone = check && BufferThreadGone(b);
    taken += DrainBuffer(b, true);
    if (gone) {
      // The name it had when it exited, if it changed since we last looked.
      BufferView* view = ViewOf(b);
      const char* name = b->exit_name[0] && (!view || strcmp(view->name, b->exit_name) != 0) ? b->exit_name : nullptr;
      EncodeThreadInfo(*g_sink, b->tid.load(std::memory_order_relaxed), name, 0, true);
      ReleaseBuffer(b);
    }
  }
  return taken;
}

// Before anything slower in a pass (the stack table's pages, a drain): a
// thread that allocates from the start (the main thread, before the writer
// ran) fills its ring's first pages meanwhile.
void CommitRingsAhead() {
  for (ThreadBuffer* b = FirstBuffer(); b; b = b->next)
    if (b->state.load(std::memory_order_acquire) != static_cast<uint32_t>(BufferState::kFree))
      CommitRingAhead(b, b->head.load(std::memory_order_relaxed), b->tail.load(std::memory_order_acquire));
}

void RefreshThreadNames() {
  for (int i = 0; i < g_view_count; ++i) {
    BufferView& v = g_views[i];
    if (v.buffer->state.load(std::memory_order_relaxed) != static_cast<uint32_t>(BufferState::kActive)) continue;
    // Reused by a thread not drained yet: the view still names the gone one.
    if (v.buffer->tid.load(std::memory_order_relaxed) != v.tid) continue;
    char name[16];
    thread_os::ReadThreadName(v.tid, name, sizeof(name));
    if (strcmp(name, v.name) != 0) {
      memcpy(v.name, name, sizeof(name));
      EncodeThreadInfo(*g_sink, v.tid, v.name, 0, false);
    }
  }
}

void SleepNs(long ns) {
  timespec ts{0, ns};
  nanosleep(&ts, nullptr);
}

// SetRingHelper's helper: a producer whose ring is full drains it into the
// stream, or, while someone else encodes, waits until they are done (1 ms
// at most). The hook's thread state is the writer's meanwhile: what the
// drain calls is the agent's, never the game's. Every signal is blocked
// while it holds the encoding: a signal handler of the game's that
// allocated on this thread would find the same ring full and wait on a
// drain that cannot end until it returns. False if it did neither (the
// stream is ending): the producer then waits as without help.
bool HelpDrain(ThreadBuffer* b) {
  if (g_encoding.load(std::memory_order_relaxed) != 0) {
    WaitForEncoding(kEncodingWaitNs);
    return true;
  }
  AllSignalsBlocked blocked;
  bool helped = false;
  if (TryLockEncoding()) {
    // The writer may have ended (its last drain, then EndOfStream) or lost
    // the recorder: nothing more goes into the stream then.
    if (!g_stop.load(std::memory_order_acquire) && !g_send_failed && g_sink && g_sink->connected()) {
      const ThreadState saved = t_thread_state;
      t_thread_state = ThreadState::kAgent;
      DrainBuffer(b, false);
      t_thread_state = saved;
      helped = true;
    }
    UnlockEncoding();
  }
  return helped;
}

void Detach() {
  // The recorder is gone: stop recording, let waiting producers go on.
  g_recording.store(false, std::memory_order_relaxed);
  SetConsumerAlive(false);
}

void* WriterMain(void*) {
  t_thread_state = ThreadState::kAgent;  // nothing this thread allocates is the game's
  // Named before it ends a time slice: the ThreadInfo that comes with its
  // first events carries the name readers leave out of the game's threads.
  pthread_setname_np(pthread_self(), wire::kWriterThreadName);
  SetConsumerRunning();
  uint64_t next_module_check = 0, next_slow_work = 0, next_slice = MonotonicNs() + g_slice_ns;
  uint64_t next_exit_scan = 0;
  CommitRingsAhead();
  PrefaultFastUnwinder();
  while (!g_stop.load(std::memory_order_acquire)) {
    CommitRingsAhead();
    // The stack table's pages, 4 MiB a pass so that draining the rings
    // never waits long for it, and its frames ahead of use (page_allocator.h
    // says why).
    PrefaultStackTable(kPrefaultChunkBytes);
    if (MonotonicNs() >= next_module_check ||
        g_sync_requested.load(std::memory_order_acquire) != g_sync_done.load(std::memory_order_relaxed))
      PrepareModuleMap();  // before the encoding lock (module_map.h)
    LockEncoding();
    uint64_t now = MonotonicNs();
    uint64_t sync = g_sync_requested.load(std::memory_order_acquire);
    if (sync != g_sync_done.load(std::memory_order_relaxed)) next_module_check = 0;
    if (g_slice_ns && now >= next_slice) {
      TimeSliceFrame();  // no-op once the game presented or marked a frame
      next_slice = now + g_slice_ns;
    }
    bool call_modules_loaded = false;
    if (now >= next_module_check) {
      // The dlclose hook drops cached unwind rules at once; unloads inside
      // libc (iconv and NSS modules, the dependencies of a failed dlopen)
      // pass by it and are caught here, within kModuleCheckNs.
      bool unloaded = false;
      bool changed = LoadedObjectsChanged(&unloaded);
      if (changed) {
        if (unloaded) ModulesUnloaded();
        EncodeModuleMap(*g_sink, Ticks());
      }
      call_modules_loaded = g_modules_loaded && (changed || g_modules_pending);
      next_module_check = now + kModuleCheckNs;
    }
    if (now >= next_slow_work) {
      EncodeClockSync(*g_sink, Ticks(), MonotonicNs());
      RefreshThreadNames();
      next_slow_work = now + kSlowWorkNs;
    }
    bool scan_exits = now >= next_exit_scan;
    if (scan_exits) next_exit_scan = now + kModuleCheckNs;
    uint64_t taken = DrainAll(scan_exits);
    DrainGpuEvents();
    if (g_send_failed || (g_sink->buffered() && !g_sink->Flush())) {
      Detach();
      UnlockEncoding();
      break;
    }
    UnlockEncoding();
    // Outside the encoding: it may take long (it patches the entries of the
    // modules just loaded), and producers with full rings drain meanwhile.
    if (call_modules_loaded) g_modules_pending = g_modules_loaded();
    g_sync_done.store(sync, std::memory_order_release);
    // Every wake-up takes a core from the game (and wakes the recorder), so
    // wake rarely: a ring holds 64 Ki events, 2 ms of events even at tens of
    // millions a second. Come back sooner only for a burst that filled a
    // good part of a ring, or for someone waiting in SyncWithWriter.
    bool waited_on = g_sync_requested.load(std::memory_order_relaxed) != sync;
    SleepNs(waited_on || taken >= kBurstRecords ? 200'000 : 2'000'000);
  }
  PrepareModuleMap();
  // Held to the end: no producer helps once the stream is ending (HelpDrain
  // sees g_stop or the failed send first).
  LockEncoding();
  if (g_sink->connected()) {
    DrainAll(false);
    DrainGpuEvents();
    if (LoadedObjectsChanged()) EncodeModuleMap(*g_sink, Ticks());
    if (g_final_packets) g_final_packets(*g_sink);
    EncodeClockSync(*g_sink, Ticks(), MonotonicNs());
    const char* reason = g_stop_reason.load(std::memory_order_acquire);
    EncodeEndOfStream(*g_sink, g_events_total, g_dropped_total, CurrentFrame(), reason ? reason : "exit",
                      g_unrecorded_in_signal_handlers.load(std::memory_order_relaxed));
    g_sink->Flush();
    g_sink->Close();
  }
  UnlockEncoding();
  g_done.store(true, std::memory_order_release);
  return nullptr;
}
}  // namespace

bool StartWriter(SocketSink* sink, const HelloInfo& hello, const WriterOptions& options) {
  g_sink = sink;
  g_slice_ns = options.time_slice_ns;
  g_final_packets = options.final_packets;
  g_modules_loaded = options.modules_loaded;
  g_modules_pending = false;
  g_send_failed = false;
  if (!g_sent_stacks) g_sent_stacks = static_cast<uint64_t*>(MapPages(kSentStackBits / 8));
  if (!g_pending_ids) g_pending_ids = static_cast<uint32_t*>(MapPages(sizeof(uint32_t) * kMaxBatchRecords));
  if (!g_views) g_views = static_cast<BufferView*>(MapPages(sizeof(BufferView) * kMaxViews));
  if (!g_gpu_records) g_gpu_records = static_cast<GpuRecord*>(MapPages(sizeof(GpuRecord) * kMaxGpuRecords));
  if (!g_sent_stacks || !g_pending_ids || !g_views || !g_gpu_records) return false;
  ResetEventEncoder();  // a new connection: the recorder knows no block of an earlier one

  EncodeHello(*sink, hello);
  g_markers_sent = MarkerEnd();
  EncodeMarkerDefs(*sink, 1, g_markers_sent);
  g_allocators_sent = AllocatorEnd();
  if (g_allocators_sent > 1) SendAllocatorDefs(*sink, 1, g_allocators_sent);
  EncodeClockSync(*sink, hello.start_ticks, hello.start_monotonic_ns);
  if (!sink->Flush()) return false;

  SetConsumerAlive(true);
  SetRingHelper(HelpDrain);
  int rc = 0;
  {
    // The writer must never run a signal handler of the game's: it starts
    // with every signal blocked.
    AllSignalsBlocked blocked;
    // A small stack: the writer's frames are shallow, and a default one (8 MiB
    // of address space) counts against a program's RLIMIT_AS.
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kWriterStackBytes);
    rc = pthread_create(&g_thread, &attr, WriterMain, nullptr);
    pthread_attr_destroy(&attr);
  }
  if (rc != 0) {
    SetRingHelper(nullptr);
    SetConsumerAlive(false);
    Warn("cannot start the writer thread (%s); not recording", strerror(rc));
    return false;
  }
  // Named here as well, so that the name is there the moment StartWriter
  // returns (the writer names itself too, before its first events).
  pthread_setname_np(g_thread, wire::kWriterThreadName);
  return true;
}

void StopWriter(const char* reason, int timeout_ms) {
  const char* none = nullptr;
  if (!g_sink || !g_stop_reason.compare_exchange_strong(none, reason, std::memory_order_acq_rel)) return;
  g_stop.store(true, std::memory_order_release);
  for (int waited = 0; waited < timeout_ms && !g_done.load(std::memory_order_acquire); ++waited) SleepNs(1'000'000);
  if (g_done.load(std::memory_order_acquire)) {
    pthread_join(g_thread, nullptr);
  } else {
    Warn("the recorder did not take the last events within %d ms; exiting without them", timeout_ms);
  }
  SetConsumerAlive(false);
}

bool SyncWithWriter(int timeout_ms) {
  if (!g_sink || g_stop.load(std::memory_order_acquire)) return false;
  uint64_t ticket = g_sync_requested.fetch_add(1, std::memory_order_acq_rel) + 1;
  for (int waited_us = 0; waited_us < timeout_ms * 1000; waited_us += 100) {
    if (g_sync_done.load(std::memory_order_acquire) >= ticket) return true;
    if (g_done.load(std::memory_order_acquire)) return false;
    SleepNs(100'000);
  }
  return false;
}

bool ReleaseWriterMemory() {
  if (!g_done.load(std::memory_order_acquire)) return false;
  SetRingHelper(nullptr);
  LockEncoding();  // a producer that took the helper before may still be in HelpDrain (it sees g_stop)
  UnlockEncoding();
  if (g_sink) g_sink->Release();
  UnmapPages(g_sent_stacks, kSentStackBits / 8);
  UnmapPages(g_pending_ids, sizeof(uint32_t) * kMaxBatchRecords);
  UnmapPages(g_views, sizeof(BufferView) * kMaxViews);
  g_sent_stacks = nullptr;
  g_pending_ids = nullptr;
  g_views = nullptr;
  ReleaseEventEncoder();
  return true;
}

void ForgetWriterAfterFork() {
  // Everything the parent's writer had sent belongs to the parent's stream;
  // a followed child starts a stream of its own from scratch.
  g_sink = nullptr;
  g_encoding.store(0);  // the parent's thread that held it is not in this process
  g_encoding_waiters.store(0);
  SetRingHelper(nullptr);
  g_stop.store(false);
  g_stop_reason.store(nullptr);
  g_done.store(false);
  g_sync_requested.store(0);
  g_sync_done.store(0);
  g_events_total = 0;
  g_dropped_total = 0;
  g_gpu_dropped = 0;
  g_send_failed = false;
  g_markers_sent = 0;
  g_allocators_sent = 1;
  g_view_count = 0;
  if (g_sent_stacks) memset(g_sent_stacks, 0, kSentStackBits / 8);
}

}  // namespace memframe::agent

