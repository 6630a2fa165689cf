// Who allocated, by thread: each thread's allocations, bytes, frees and time
// inside the allocator, and what it allocates per frame. The frames are the
// capture's (the presenting thread's), so a worker's "per frame" is its work
// in the frames it took part in.
//
// One replay records what every thread did in each frame it took part in
// (ThreadHistory); the report of any frames is then a sum over it, so a
// viewer asks for another range without replaying the events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_range.h"

namespace memframe::analysis {

struct ThreadStats {
  uint32_t tid = 0;
  std::string name;
  uint64_t allocations = 0;  // ALLOC events (heap blocks)
  uint64_t bytes = 0;
  uint64_t frees = 0;        // FREE events
  uint64_t bytes_freed = 0;  // of the blocks those frees released (a free of an unknown block: none)
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

// What one thread did in one frame (ThreadStats' figures; frames_with_allocations unused).
struct ThreadFrame {
  uint64_t frame = 0;
  ThreadStats figures;
};

struct ThreadHistory {
  struct Thread {
    uint32_t tid = 0;
    std::string name;
    bool memframe = false;            // memframe's own thread (never in a ThreadReport)
    std::vector<ThreadFrame> frames;  // ascending; only the frames it called the allocator in
  };
  std::vector<Thread> threads;  // by thread index (Stream::threads)
};

// One replay of `stream`: every thread's figures frame by frame.
ThreadHistory RecordThreadHistory(const Stream& stream);

// The threads' figures over the frames of `ranges` (ascending, disjoint);
// `frames`: how many of the capture's frames they hold. Threads with
// nothing in them are left out.
ThreadReport SumThreads(const ThreadHistory& history, const std::vector<FrameRange>& ranges, uint64_t frames);

// Over every frame; `frames`: how many frames the capture has (FrameTable::frames.size()).
ThreadReport AnalyzeThreads(const Stream& stream, uint64_t frames);

}  // namespace memframe::analysis
