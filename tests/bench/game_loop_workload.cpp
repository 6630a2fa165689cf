// A deterministic, game-shaped allocation load for comparing profilers.
// It links nothing of memframe: it is recorded by LD_PRELOAD like any game.
//
// `--shape lifo|shuffled|jobs|realloc|pairs` picks what each of `--threads`
// threads does in a frame (workload_shapes.h; lifo, the default, is the
// load of the benchmark's history), `--allocs` its temporaries a frame. On
// the main thread, every `--level-every` frames (and at frame 0), a level
// load of `--level-mb` MiB in mixed blocks frees the previous one.
//
// Every size and lifetime comes from a fixed xorshift seed, so
// two runs make exactly the same calls: the printed `allocations` and
// `checksum` must match between a native and a profiled run. Nothing the
// loop does besides these counted calls allocates (containers are reserved
// up front), so allocations == frees == the events a profiler should see,
// plus a few hundred from the C++ runtime and the thread start.
//
// Each frame ends with SDL_GL_SwapWindow(nullptr) if that symbol exists in
// the process: under memframe the agent exports it and counts a frame;
// natively there is none and nothing is called (no GL, no SDL needed).
//
// Output, parsed by compare.py: a line of counts and checksum, a line
// `frame_time_us p50=.. p99=..` (steady_clock, whole frame including the
// swap), `peak_rss_kb=.. cpu_ms=..` of this process and the minor page
// faults of its own threads, `game_thread_minflt=..`.
#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "workload_shapes.h"

namespace {

using memframe::bench::Counts;
using memframe::bench::Shape;
using memframe::bench::XorShift;

constexpr int kSceneDepth = 12;  // nested calls above each allocation site

struct Options {
  int frames = 1000;
  int threads = 1;
  int allocs = 4000;  // temporaries per frame and thread
  int level_every = 250;
  int level_mb = 24;
  const char* shape = "lifo";
};

// Stands for a scene-graph walk: the allocation sites sit kSceneDepth calls
// below the frame loop, so stacks are about as deep as a game's.
__attribute__((noinline)) void WalkScene(Shape& shape, int thread, int frame, int depth) {
  if (depth > 0) {
    WalkScene(shape, thread, frame, depth - 1);
    asm volatile("" ::: "memory");  // keeps the recursion a real call
    return;
  }
  shape.Frame(thread, frame);
}

// The level's blocks: 4 KiB..1 MiB, every page touched so RSS is real.
struct Level {
  std::vector<void*> blocks;
};

// The main thread's level loads, with a generator and counts of their own.
struct Loader {
  XorShift rng{0x2545F4914F6CDD1Dull};
  Counts counts;
};

__attribute__((noinline)) void LoadLevel(Loader& sim, Level& next, int mb) {
  next.blocks.clear();
  uint64_t budget = static_cast<uint64_t>(mb) << 20;
  for (uint64_t used = 0; used < budget;) {
    size_t size = static_cast<size_t>(sim.rng.Range(4096, 1 << 20));
    void* block = malloc(size);
    if (!block) abort();
    memset(block, static_cast<int>(size & 0xff), size);
    next.blocks.push_back(block);
    sim.counts.checksum += size;
    ++sim.counts.allocations;
    used += size;
  }
}

__attribute__((noinline)) void UnloadLevel(Loader& sim, Level& level) {
  for (void* block : level.blocks) {
    free(block);
    ++sim.counts.frees;
  }
  level.blocks.clear();
}

bool ParseInt(const char* text, int min, int* out) {
  char* end = nullptr;
  long v = strtol(text, &end, 10);
  if (!text[0] || *end || v < min || v > 1000000000) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    int* target = nullptr;
    int min = 1;
    if (!strcmp(a, "--shape") && i + 1 < argc) {
      o->shape = argv[++i];
      continue;
    }
    if (!strcmp(a, "--frames")) target = &o->frames;
    else if (!strcmp(a, "--threads")) target = &o->threads;
    else if (!strcmp(a, "--allocs")) target = &o->allocs, min = 0;
    else if (!strcmp(a, "--level-every")) target = &o->level_every;
    else if (!strcmp(a, "--level-mb")) target = &o->level_mb, min = 0;
    if (!target || i + 1 >= argc || !ParseInt(argv[++i], min, target)) {
      fprintf(stderr,
              "usage: game_loop_workload [--shape lifo|shuffled|jobs|realloc|pairs] [--frames N] [--threads T]"
              " [--allocs K] [--level-every F] [--level-mb MB]\n");
      return false;
    }
  }
  return true;
}

// Page faults this thread took: a profiler's in-process threads (memframe's
// writer) take their own, the game's threads should not take more.
long ThreadMinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

uint64_t Percentile(std::vector<uint64_t> v, double p) {
  if (v.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(i), v.end());
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!ParseArgs(argc, argv, &opt)) return 2;

  // Looked up once: natively null, under memframe the agent's frame hook.
  using SwapFn = void (*)(void*);
  auto swap = reinterpret_cast<SwapFn>(dlsym(RTLD_DEFAULT, "SDL_GL_SwapWindow"));

  std::unique_ptr<Shape> shape = memframe::bench::MakeShape(opt.shape, opt.threads, opt.allocs);
  if (!shape) {
    fprintf(stderr, "game_loop_workload: unknown --shape %s\n", opt.shape);
    return 2;
  }
  Loader loader;
  Level levels[2];
  for (Level& l : levels) l.blocks.reserve(static_cast<size_t>(opt.level_mb) * 4 + 16);
  std::vector<uint64_t> frame_us;
  frame_us.reserve(static_cast<size_t>(opt.frames));

  // Helper threads do their frame's part, then meet the main thread at the
  // barrier; the main thread presents once everyone is done, like a job
  // system that joins before the swap. A shape that prepares each frame
  // (jobs) has the threads wait for that too.
  const bool prepare = shape->NeedsPrepare();
  std::atomic<long> game_thread_faults{0};
  std::barrier sync(opt.threads);
  std::vector<std::thread> helpers;
  for (int t = 1; t < opt.threads; ++t) {
    helpers.emplace_back([&, t] {
      for (int f = 0; f < opt.frames; ++f) {
        if (prepare) sync.arrive_and_wait();
        WalkScene(*shape, t, f, kSceneDepth);
        sync.arrive_and_wait();
      }
      game_thread_faults += ThreadMinorFaults();
    });
  }

  int current = 0;
  for (int f = 0; f < opt.frames; ++f) {
    auto start = std::chrono::steady_clock::now();
    if (opt.level_mb > 0 && f % opt.level_every == 0) {
      LoadLevel(loader, levels[current ^ 1], opt.level_mb);
      UnloadLevel(loader, levels[current]);
      current ^= 1;
    }
    if (prepare) {
      shape->Prepare(f);
      sync.arrive_and_wait();
    }
    WalkScene(*shape, 0, f, kSceneDepth);
    sync.arrive_and_wait();
    if (swap) swap(nullptr);
    auto end = std::chrono::steady_clock::now();
    frame_us.push_back(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(end - start).count()));
  }
  game_thread_faults += ThreadMinorFaults();
  for (std::thread& h : helpers) h.join();
  UnloadLevel(loader, levels[current]);

  Counts total = shape->Finish();
  uint64_t checksum = total.checksum * 31 + loader.counts.checksum;
  uint64_t allocations = total.allocations + loader.counts.allocations;
  uint64_t frees = total.frees + loader.counts.frees;
  printf("shape=%s frames=%d threads=%d allocations=%" PRIu64 " frees=%" PRIu64 " checksum=%016" PRIx64 "\n", opt.shape, opt.frames,
         opt.threads, allocations, frees, checksum);
  printf("frame_time_us p50=%" PRIu64 " p99=%" PRIu64 "\n", Percentile(frame_us, 0.50), Percentile(frame_us, 0.99));
  // Our own peak, not the tool's: outside tools (time -f %M, wait4) see the
  // largest process of the tree, which may be the recorder or the profiler.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // CPU of this process (a profiler's in-process threads included): the
  // tool's own processes are what the tree used beyond this.
  auto ms = [](const timeval& tv) { return static_cast<long>(tv.tv_sec) * 1000 + tv.tv_usec / 1000; };
  printf("peak_rss_kb=%ld cpu_ms=%ld game_thread_minflt=%ld\n", usage.ru_maxrss, ms(usage.ru_utime) + ms(usage.ru_stime),
         game_thread_faults.load());
  return allocations == frees ? 0 : 1;
}
