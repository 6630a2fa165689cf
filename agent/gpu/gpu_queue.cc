#include "gpu/gpu_queue.h"

#include <sched.h>
#include <time.h>

#include <atomic>

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/recorder.h"

namespace memframe::agent {

bool g_gpu_tracking = true;

namespace {

// A bounded multi-producer queue with one consumer (the writer), after
// Dmitry Vyukov's: each cell's sequence says whose turn it is, so producers
// share only the tail counter. 4096 events: a level load's uploads between
// two drains of the writer (every 2 ms) with room to spare.
constexpr uint64_t kCells = 4096;

struct alignas(64) Cell {
  // The cell's turn, less its index: zero-initialised storage (.bss, never
  // touched until used) is then the empty queue.
  std::atomic<uint64_t> turn{0};
  GpuRecord record;
};

Cell g_cells[kCells];
alignas(64) std::atomic<uint64_t> g_tail{0};
alignas(64) uint64_t g_head = 0;  // the writer's alone
std::atomic<uint64_t> g_dropped{0};

uint64_t Turn(uint64_t position) { return g_cells[position % kCells].turn.load(std::memory_order_acquire) + position % kCells; }

void SleepBriefly() {
  timespec ts{0, 50'000};
  nanosleep(&ts, nullptr);
}

}  // namespace

void PushGpuRecord(const RecursionGuard& proof, GpuRecord& r, const void* hook_frame) {
  r.stack_id = CaptureEventStack(proof, hook_frame);
  r.frame = CurrentFrame();
  r.tid = CurrentThreadId();
  r.ticks = OrderedTicks();
  bool checked = false;
  uint64_t position = g_tail.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t turn = Turn(position);
    if (turn == position) {
      if (g_tail.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) break;
    } else if (turn < position) {  // full: the writer has not taken this cell's last record
      if (!ProducerMayWait(&checked)) {
        g_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      RingWaitWindow window(false);
      SleepBriefly();
      position = g_tail.load(std::memory_order_relaxed);
    } else {
      position = g_tail.load(std::memory_order_relaxed);
    }
  }
  Cell& cell = g_cells[position % kCells];
  cell.record = r;
  cell.turn.store(position + 1 - position % kCells, std::memory_order_release);
}

int TakeGpuRecords(GpuRecord* out, int max, uint64_t* dropped) {
  int taken = 0;
  while (taken < max && Turn(g_head) == g_head + 1) {
    Cell& cell = g_cells[g_head % kCells];
    out[taken++] = cell.record;
    cell.turn.store(g_head + kCells - g_head % kCells, std::memory_order_release);
    ++g_head;
  }
  *dropped += g_dropped.exchange(0, std::memory_order_relaxed);
  return taken;
}

void ForgetGpuQueueAfterFork() {
  // The parent's queued events are dropped, and so is a cell another
  // thread of the parent had claimed and not filled (that thread is not in
  // the child): each becomes empty for its next turn.
  const uint64_t tail = g_tail.load(std::memory_order_relaxed);
  for (uint64_t position = g_head; position < tail; ++position)
    g_cells[position % kCells].turn.store(position + kCells - position % kCells, std::memory_order_relaxed);
  g_head = tail;
  g_dropped.store(0, std::memory_order_relaxed);
}

}  // namespace memframe::agent
