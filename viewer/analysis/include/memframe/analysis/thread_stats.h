// Who allocated, by thread: each thread's allocations, bytes, frees and time
// inside the allocator, and what it allocates per frame. The frames are the
// capture's (the presenting thread's), so a worker's "per frame" is its work
// in the frames it took part in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

struct ThreadStats {
  uint32_t tid = 0;
  std::string name;
  uint64_t allocations = 0;  // ALLOC events (heap blocks)
  uint64_t bytes = 0;
  uint64_t frees = 0;        // FREE events
  uint64_t maps = 0;         // MAP events (regions)
  uint64_t mapped_bytes = 0;
  uint64_t alloc_time_ns = 0;           // inside the real allocator (allocations and frees)
  uint64_t frames_with_allocations = 0;  // distinct frames in which it allocated
  bool memframe = false;                 // memframe's own thread (never in a ThreadReport)
};

struct ThreadReport {
  // Threads that called the allocator, by allocations, then bytes
  // (descending), then tid.
  std::vector<ThreadStats> threads;
  uint64_t frames = 0;               // frames of the capture (rows of the frame table)
  uint64_t alloc_time_ns = 0;        // of every thread
};

// `frames`: how many frames the capture has (FrameTable::frames.size()).
ThreadReport AnalyzeThreads(const Stream& stream, uint64_t frames);

}  // namespace memframe::analysis
