// The per-frame work of game_loop_workload, in five shapes that stress a
// profiler differently (tests/bench/README.md, "The workloads"):
//   lifo      temporaries freed in the order they came, at most 64 alive, and
//             64 entities a frame living 1..119 frames (the history's load);
//   shuffled  thousands of temporaries alive at once per thread, each freed
//             at a random moment (no order an allocator or a profiler can
//             bank on), and 200 pooled blocks a frame of four sizes living
//             1..119 frames;
//   jobs      a job system: the main thread hands 64 jobs a frame to every
//             thread, each job frees the descriptor the main thread
//             allocated and leaves a result the main thread frees the next
//             frame (frees on another thread than the allocation);
//   realloc   containers that grow by realloc: string builders, vectors
//             doubling their capacity, long-lived buffers resized each frame;
//   pairs     a malloc freed at once, `allocs` times a frame on every thread
//             (with 64 threads: threads that outnumber the cores).
// Every choice comes from xorshift seeds fixed per thread (per job for jobs),
// so any run makes the same calls and reaches the same checksum.
#pragma once

#include <cstdint>
#include <memory>

namespace memframe::bench {

class XorShift {
 public:
  explicit XorShift(uint64_t seed) : state_(seed ? seed : 1) {}
  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  uint64_t Range(uint64_t lo, uint64_t hi) { return lo + Next() % (hi - lo + 1); }

 private:
  uint64_t state_;
};

struct Counts {
  uint64_t checksum = 0;
  uint64_t allocations = 0;  // a realloc that moves or resizes a block is one of each
  uint64_t frees = 0;
};

class Shape {
 public:
  virtual ~Shape() = default;
  // The main thread, alone, before the threads start frame `frame` (only
  // called when NeedsPrepare: it costs the frame a second barrier).
  virtual bool NeedsPrepare() const { return false; }
  virtual void Prepare(int /*frame*/) {}
  // Thread `thread` (0 = main) does its part of frame `frame`.
  virtual void Frame(int thread, int frame) = 0;
  // After every thread joined: frees what is still alive, returns the totals.
  virtual Counts Finish() = 0;
};

// Null for an unknown name. `allocs` is temporaries per frame and thread.
std::unique_ptr<Shape> MakeShape(const char* name, int threads, int allocs);

}  // namespace memframe::bench
