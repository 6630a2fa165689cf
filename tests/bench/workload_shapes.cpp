// The shapes of workload_shapes.h. Every allocation and free is counted;
// nothing else here allocates while frames run (containers are sized up
// front), so allocations == frees == the events a profiler should see.
//
// noinline everywhere (with -fno-optimize-sibling-calls in the build) so
// each allocation comes from a real call stack below the scene walk.
#include "workload_shapes.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace memframe::bench {
namespace {

constexpr int kMaxLifetime = 120;  // frames; also the lifetime rings' size

// A temporary is a raw malloc block or a new[] array: freed the matching way.
struct Temp {
  void* block = nullptr;
  bool from_new = false;
};

void FreeTemp(Counts& c, Temp& t) {
  if (!t.block) return;
  if (t.from_new)
    delete[] static_cast<char*>(t.block);
  else
    free(t.block);
  t.block = nullptr;
  ++c.frees;
}

// Allocates 16..4096 bytes into `t` (malloc or new[] by a bit of `r`),
// touches both ends so the block is really used, folds the size in.
void NewTemp(Counts& c, Temp& t, uint64_t r) {
  size_t size = 16 + r % (4096 - 16 + 1);
  t.from_new = (r >> 32) & 1;
  t.block = t.from_new ? static_cast<void*>(new char[size]) : malloc(size);
  if (!t.block) abort();
  static_cast<char*>(t.block)[0] = static_cast<char>(r);
  static_cast<char*>(t.block)[size - 1] = static_cast<char>(r >> 8);
  c.checksum += size ^ (r >> 40);
  ++c.allocations;
}

// Blocks that die a number of frames after their birth: dying[f % 120]
// holds the ones to free at frame f.
struct Lifetimes {
  Lifetimes() {
    for (auto& bucket : dying) bucket.reserve(512);  // rarely outgrown: few uncounted allocations
  }
  void Add(void* block, int frame, int lifetime) { dying[(frame + lifetime) % kMaxLifetime].push_back(block); }
  template <typename FreeFn>
  void FreeDue(int frame, FreeFn free_one) {
    auto& due = dying[frame % kMaxLifetime];
    for (void* b : due) free_one(b);
    due.clear();
  }
  template <typename FreeFn>
  void FreeAll(FreeFn free_one) {
    for (int f = 0; f < kMaxLifetime; ++f) FreeDue(f, free_one);
  }
  std::vector<void*> dying[kMaxLifetime];
};

// A shape whose threads each keep their own state T (a generator, counts,
// what is alive): T(seed), T::counts, T::FreeAll(); Work(T&, frame) is the
// frame's part.
template <typename T>
class PerThreadShape : public Shape {
 public:
  PerThreadShape(int threads, uint64_t seed) {
    threads_.reserve(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t) threads_.emplace_back(seed * static_cast<uint64_t>(t + 1));
  }
  void Frame(int thread, int frame) override { Work(threads_[static_cast<size_t>(thread)], frame); }
  Counts Finish() override {
    Counts total;
    for (T& t : threads_) {
      t.FreeAll();
      total.checksum = total.checksum * 31 + t.counts.checksum;
      total.allocations += t.counts.allocations;
      total.frees += t.counts.frees;
    }
    return total;
  }

 protected:
  virtual void Work(T& t, int frame) = 0;

 private:
  std::vector<T> threads_;
};

// ---- lifo --------------------------------------------------------------------

constexpr int kTempWindow = 64;      // temporaries alive at once in a frame
constexpr int kSpawnsPerFrame = 64;  // entities created per frame and thread

struct Entity {
  float position[3];
  float velocity[3];
  uint64_t id;
  uint64_t flags;
  char name[56];
};
static_assert(sizeof(Entity) == 96);

void DeleteEntity(Counts& c, void* block) {
  auto* e = static_cast<Entity*>(block);
  c.checksum += e->id;
  delete e;
  ++c.frees;
}

struct LifoThread {
  explicit LifoThread(uint64_t seed) : rng(seed) {}
  void FreeAll() {
    entities.FreeAll([&](void* b) { DeleteEntity(counts, b); });
  }
  XorShift rng;
  Counts counts;
  Lifetimes entities;
};

__attribute__((noinline)) void MakeTemporaries(LifoThread& t, int count) {
  Temp window[kTempWindow];
  for (int i = 0; i < count; ++i) {
    Temp& slot = window[i % kTempWindow];
    FreeTemp(t.counts, slot);
    NewTemp(t.counts, slot, t.rng.Next());
  }
  for (Temp& slot : window) FreeTemp(t.counts, slot);
}

__attribute__((noinline)) void UpdateEntities(LifoThread& t, int frame) {
  t.entities.FreeDue(frame, [&](void* b) { DeleteEntity(t.counts, b); });
  for (int i = 0; i < kSpawnsPerFrame; ++i) {
    auto* e = new Entity{};
    e->id = t.rng.Next() & 0xffff;
    ++t.counts.allocations;
    t.entities.Add(e, frame, static_cast<int>(t.rng.Range(1, kMaxLifetime - 1)));
  }
}

class LifoShape : public PerThreadShape<LifoThread> {
 public:
  LifoShape(int threads, int allocs) : PerThreadShape(threads, 0x9E3779B97F4A7C15ull), allocs_(allocs) {}

 private:
  void Work(LifoThread& t, int frame) override {
    MakeTemporaries(t, allocs_ / 2);
    UpdateEntities(t, frame);
    MakeTemporaries(t, allocs_ - allocs_ / 2);
  }
  int allocs_;
};

// ---- shuffled ------------------------------------------------------------------

constexpr int kLiveTemps = 4096;     // temporaries alive at once per thread
constexpr int kPooledPerFrame = 200;  // pooled blocks born per frame and thread
constexpr size_t kPoolSizes[4] = {32, 80, 256, 1024};

void FreePooled(Counts& c, void* block) {
  c.checksum += static_cast<unsigned char*>(block)[0];
  free(block);
  ++c.frees;
}

struct ShuffledThread {
  explicit ShuffledThread(uint64_t seed) : rng(seed), live(kLiveTemps) {}
  void FreeAll() {
    for (Temp& slot : live) FreeTemp(counts, slot);
    pooled.FreeAll([&](void* b) { FreePooled(counts, b); });
  }
  XorShift rng;
  Counts counts;
  std::vector<Temp> live;
  Lifetimes pooled;
};

// Each new temporary replaces one picked at random: frees come in no order,
// and a block lives about kLiveTemps allocations (a frame or so).
__attribute__((noinline)) void ChurnLiveSet(ShuffledThread& t, int count) {
  for (int i = 0; i < count; ++i) {
    uint64_t r = t.rng.Next();
    Temp& slot = t.live[(r >> 48) % kLiveTemps];
    FreeTemp(t.counts, slot);
    NewTemp(t.counts, slot, r);
  }
}

__attribute__((noinline)) void UpdatePools(ShuffledThread& t, int frame) {
  t.pooled.FreeDue(frame, [&](void* b) { FreePooled(t.counts, b); });
  for (int i = 0; i < kPooledPerFrame; ++i) {
    uint64_t r = t.rng.Next();
    size_t size = kPoolSizes[r & 3];
    auto* block = static_cast<unsigned char*>(malloc(size));
    if (!block) abort();
    memset(block, static_cast<int>(r >> 8) & 0xff, size);
    ++t.counts.allocations;
    t.pooled.Add(block, frame, static_cast<int>(1 + (r >> 16) % (kMaxLifetime - 1)));
  }
}

class ShuffledShape : public PerThreadShape<ShuffledThread> {
 public:
  ShuffledShape(int threads, int allocs) : PerThreadShape(threads, 0xD1B54A32D192ED03ull), allocs_(allocs) {}

 private:
  void Work(ShuffledThread& t, int frame) override {
    ChurnLiveSet(t, allocs_ / 2);
    UpdatePools(t, frame);
    ChurnLiveSet(t, allocs_ - allocs_ / 2);
  }
  int allocs_;
};

// ---- jobs ----------------------------------------------------------------------

constexpr int kJobsPerFrame = 64;
constexpr int kJobScratch = 16;  // a job's temporaries alive at once

struct JobDescriptor {
  uint64_t seed;
  int temporaries;
  char payload[44];
};

struct alignas(64) JobThread {
  Counts counts;
};

class JobsShape : public Shape {
 public:
  JobsShape(int threads, int allocs)
      : per_job_(allocs * threads / kJobsPerFrame), threads_(static_cast<size_t>(threads)) {}
  bool NeedsPrepare() const override { return true; }

  // Frees the results of the frame before (allocated by whichever thread ran
  // each job), then submits this frame's jobs.
  __attribute__((noinline)) void Prepare(int frame) override {
    FreeResults((frame + 1) % 2);
    Counts& c = threads_[0].counts;
    for (int j = 0; j < kJobsPerFrame; ++j) {
      auto* d = new JobDescriptor{};
      d->seed = (static_cast<uint64_t>(frame) << 16 | static_cast<uint64_t>(j)) * 0x9E3779B97F4A7C15ull;
      d->temporaries = per_job_;
      jobs_[j] = d;
      ++c.allocations;
    }
    next_[(frame + 1) % 2].store(0, std::memory_order_relaxed);  // nobody uses it in this frame
  }

  void Frame(int thread, int frame) override {
    Counts& c = threads_[static_cast<size_t>(thread)].counts;
    std::atomic<int>& next = next_[frame % 2];
    for (int j; (j = next.fetch_add(1, std::memory_order_relaxed)) < kJobsPerFrame;)
      RunJob(c, jobs_[j], &results_[frame % 2][j]);
  }

  Counts Finish() override {
    FreeResults(0);
    FreeResults(1);
    Counts total;
    for (JobThread& t : threads_) {
      total.checksum += t.counts.checksum;  // a sum: which thread ran a job does not matter
      total.allocations += t.counts.allocations;
      total.frees += t.counts.frees;
    }
    total.checksum += job_checksum_.load();
    return total;
  }

 private:
  void FreeResults(int parity) {
    Counts& c = threads_[0].counts;
    for (void*& result : results_[parity]) {
      if (!result) continue;
      c.checksum += static_cast<unsigned char*>(result)[0];
      free(result);
      ++c.frees;
      result = nullptr;
    }
  }

  __attribute__((noinline)) void RunJob(Counts& c, JobDescriptor* d, void** result) {
    XorShift rng(d->seed);
    uint64_t sum = 0;
    Temp scratch[kJobScratch];
    for (int i = 0; i < d->temporaries; ++i) {
      Temp& slot = scratch[i % kJobScratch];
      FreeTemp(c, slot);
      uint64_t r = rng.Next();
      NewTemp(c, slot, r);
      sum += r >> 40;
    }
    for (Temp& slot : scratch) FreeTemp(c, slot);
    size_t size = static_cast<size_t>(rng.Range(64, 16384));
    auto* out = static_cast<unsigned char*>(malloc(size));
    if (!out) abort();
    memset(out, static_cast<int>(sum & 0xff), size);
    ++c.allocations;
    *result = out;
    delete d;  // allocated by the main thread
    ++c.frees;
    job_checksum_.fetch_add(sum, std::memory_order_relaxed);
  }

  int per_job_;
  std::vector<JobThread> threads_;
  JobDescriptor* jobs_[kJobsPerFrame] = {};
  void* results_[2][kJobsPerFrame] = {};
  std::atomic<int> next_[2] = {};
  std::atomic<uint64_t> job_checksum_{0};
};

// ---- realloc -------------------------------------------------------------------

constexpr int kLongLived = 32;  // buffers resized every frame, alive all run

struct Buffer {
  unsigned char* data = nullptr;
  size_t size = 0;
};

// realloc to `size` (0 frees), counted as the FREE and ALLOC it is.
void Resize(Counts& c, Buffer& b, size_t size, uint64_t r) {
  if (size == 0) {
    if (b.data) {
      free(b.data);
      ++c.frees;
    }
    b = Buffer{};
    return;
  }
  auto* grown = static_cast<unsigned char*>(realloc(b.data, size));
  if (!grown) abort();
  if (b.data) ++c.frees;
  ++c.allocations;
  grown[size - 1] = static_cast<unsigned char>(r);
  c.checksum += size;
  b.data = grown;
  b.size = size;
}

struct ReallocThread {
  explicit ReallocThread(uint64_t seed) : rng(seed), buffers(kLongLived) {}
  void FreeAll() {
    for (Buffer& b : buffers) Resize(counts, b, 0, 0);
  }
  XorShift rng;
  Counts counts;
  std::vector<Buffer> buffers;
};

// A string built by appends: one realloc to the exact length per append.
__attribute__((noinline)) int BuildString(ReallocThread& t) {
  Buffer s;
  int appends = static_cast<int>(t.rng.Range(4, 24));
  for (int i = 0; i < appends; ++i) {
    uint64_t r = t.rng.Next();
    size_t old = s.size;
    Resize(t.counts, s, s.size + 1 + r % 64, r);
    s.data[old] = static_cast<unsigned char>(r >> 8);
  }
  Resize(t.counts, s, 0, 0);
  return appends + 1;
}

// A vector filled by push_back: its capacity doubles from 16 bytes.
__attribute__((noinline)) int FillVector(ReallocThread& t) {
  Buffer v;
  size_t final_size = static_cast<size_t>(t.rng.Range(16, 64 << 10));
  int calls = 1;
  for (size_t capacity = 16;; capacity *= 2, ++calls) {
    Resize(t.counts, v, capacity, t.rng.Next());
    if (capacity >= final_size) break;
  }
  Resize(t.counts, v, 0, 0);
  return calls + 1;
}

// A long-lived buffer grows, shrinks to fit or is released.
__attribute__((noinline)) int ResizeLongLived(ReallocThread& t) {
  uint64_t r = t.rng.Next();
  Buffer& b = t.buffers[r % kLongLived];
  size_t size = (r >> 8) % 8 == 0 ? 0 : static_cast<size_t>(16 + (r >> 16) % (32 << 10));
  Resize(t.counts, b, size, r);
  return 1;
}

class ReallocShape : public PerThreadShape<ReallocThread> {
 public:
  ReallocShape(int threads, int allocs) : PerThreadShape(threads, 0xA0761D6478BD642Full), allocs_(allocs) {}

 private:
  __attribute__((noinline)) void Work(ReallocThread& t, int /*frame*/) override {
    for (int calls = 0; calls < allocs_;) {
      switch (t.rng.Next() % 4) {
        case 0:
        case 1: calls += BuildString(t); break;
        case 2: calls += FillVector(t); break;
        default: calls += ResizeLongLived(t); break;
      }
    }
  }
  int allocs_;
};

// ---- pairs -------------------------------------------------------------------

// The plainest load: each thread allocates a block and frees it at once,
// `allocs` times a frame. With many threads (issue 34 runs 64 on 2 cores)
// it measures what a profiler costs when threads outnumber cores, not what
// an allocator does.
struct PairsThread {
  explicit PairsThread(uint64_t seed) : rng(seed) {}
  void FreeAll() {}
  XorShift rng;
  Counts counts;
};

class PairsShape : public PerThreadShape<PairsThread> {
 public:
  PairsShape(int threads, int allocs) : PerThreadShape(threads, 0xC2B2AE3D27D4EB4Full), allocs_(allocs) {}

 private:
  __attribute__((noinline)) void Work(PairsThread& t, int /*frame*/) override {
    for (int i = 0; i < allocs_; ++i) {
      Temp temp;
      NewTemp(t.counts, temp, t.rng.Next() & ~(1ull << 32));  // malloc, not new[]
      FreeTemp(t.counts, temp);
    }
  }
  int allocs_;
};

}  // namespace

std::unique_ptr<Shape> MakeShape(const char* name, int threads, int allocs) {
  if (!strcmp(name, "lifo")) return std::make_unique<LifoShape>(threads, allocs);
  if (!strcmp(name, "shuffled")) return std::make_unique<ShuffledShape>(threads, allocs);
  if (!strcmp(name, "jobs")) return std::make_unique<JobsShape>(threads, allocs);
  if (!strcmp(name, "realloc")) return std::make_unique<ReallocShape>(threads, allocs);
  if (!strcmp(name, "pairs")) return std::make_unique<PairsShape>(threads, allocs);
  return nullptr;
}

}  // namespace memframe::bench
