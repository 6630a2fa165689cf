// GPU object events (buffers, textures, renderbuffers, Vulkan memory) on
// their way to the writer: one bounded lock-free queue for the whole
// process, apart from the per-thread heap rings, since these events are few
// (a level load makes hundreds) and carry more than a ring record holds.
//
// A hook fills a GpuRecord on its stack and pushes it: a compare-and-swap
// on the queue's tail and a copy, no allocation, no lock. When the queue is
// full the hook waits for the writer, as a full heap ring does, or drops
// the event and counts it in drop mode (MEMFRAME_DROP).
#pragma once

#include <cstdint>

#include "capture/recorder.h"
#include "capture/recursion_guard.h"

namespace memframe::agent {

// MEMFRAME_GPU: whether the GL and Vulkan hooks record (else they only
// pass the call on). Set once at the start.
extern bool g_gpu_tracking;
inline bool GpuTracking() { return g_gpu_tracking && Recording(); }

struct GpuRecord {
  uint64_t ticks;
  uint64_t frame;
  uint64_t name;    // GL name or Vulkan handle
  uint64_t bytes;
  uint64_t memory;  // Vulkan: the memory a resource is bound to
  uint64_t offset;
  uint8_t op;       // wire::GpuOp
  uint8_t kind;     // wire::GpuObjectKind
  uint8_t basis;    // wire::GpuSizeBasis
  uint8_t face;
  uint32_t context;  // GL share group
  uint32_t format;
  uint32_t target;
  uint32_t width, height, depth;
  uint32_t levels, samples, level;
  uint32_t memory_type, memory_heap, memory_flags;
  uint32_t stack_id;
  uint32_t tid;
};

// Stamps `r` (ticks, frame, thread, stack) and queues it. `hook_frame`:
// the hook's __builtin_frame_address(0), where its stack's unwind starts.
void PushGpuRecord(const RecursionGuard& proof, GpuRecord& r, const void* hook_frame);

// Writer side: moves up to `max` queued records into `out`; returns how
// many, and adds the drops since the last call to *dropped.
int TakeGpuRecords(GpuRecord* out, int max, uint64_t* dropped);

// A new stream in a fork child: the parent's queued events are not its own.
void ForgetGpuQueueAfterFork();

}  // namespace memframe::agent
