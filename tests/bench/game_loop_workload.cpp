// A deterministic, game-shaped allocation load for comparing profilers.
// It links nothing of memframe: it is recorded by LD_PRELOAD like any game.
//
// Per frame and per simulation thread:
//   - `--allocs` short-lived temporaries (16..4096 bytes, malloc and new[]
//     mixed), at most kTempWindow alive at once, all freed before the frame
//     ends;
//   - kSpawnsPerFrame 96-byte `new Entity` that live 1..kMaxLifetime frames;
// and on the main thread, every `--level-every` frames (and at frame 0), a
// level load of `--level-mb` MiB in mixed blocks that frees the previous one.
//
// Every size and lifetime comes from a fixed xorshift seed per thread, so
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
// swap) and `peak_rss_kb=.. cpu_ms=..` of this process.
#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int kTempWindow = 64;      // temporaries alive at once in a frame
constexpr int kSpawnsPerFrame = 64;  // entities created per frame and thread
constexpr int kMaxLifetime = 120;    // frames; also the lifetime ring's size
constexpr int kSceneDepth = 12;      // nested calls above each allocation site

struct Options {
  int frames = 1000;
  int threads = 1;
  int allocs = 4000;  // temporaries per frame and thread
  int level_every = 250;
  int level_mb = 24;
};

class XorShift {
 public:
  explicit XorShift(uint64_t seed) : state_(seed) {}
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

struct Entity {
  float position[3];
  float velocity[3];
  uint64_t id;
  uint64_t flags;
  char name[56];
};
static_assert(sizeof(Entity) == 96);

// What one simulation thread owns. Counters are per thread and summed at
// the end, so the threads share no cache line while they run.
struct Sim {
  explicit Sim(uint64_t seed) : rng(seed) {
    for (auto& bucket : dying) bucket.reserve(kSpawnsPerFrame);
  }
  XorShift rng;
  uint64_t checksum = 0;
  uint64_t allocations = 0;
  uint64_t frees = 0;
  // dying[f % kMaxLifetime] holds the entities to delete at frame f.
  std::vector<Entity*> dying[kMaxLifetime];
};

// A temporary is a raw malloc block or a new[] array: freed the matching way.
struct Temp {
  void* block = nullptr;
  bool from_new = false;
};

void FreeTemp(Sim& sim, Temp& t) {
  if (!t.block) return;
  if (t.from_new)
    delete[] static_cast<char*>(t.block);
  else
    free(t.block);
  t.block = nullptr;
  ++sim.frees;
}

// noinline everywhere below (with -fno-optimize-sibling-calls in the build)
// so each allocation comes from a real, deep call stack, as in a game.
__attribute__((noinline)) void MakeTemporaries(Sim& sim, int count) {
  Temp window[kTempWindow];
  for (int i = 0; i < count; ++i) {
    Temp& slot = window[i % kTempWindow];
    FreeTemp(sim, slot);
    uint64_t r = sim.rng.Next();
    size_t size = 16 + r % (4096 - 16 + 1);
    slot.from_new = (r >> 32) & 1;
    slot.block = slot.from_new ? static_cast<void*>(new char[size]) : malloc(size);
    if (!slot.block) abort();
    // Touch both ends so the block is really used, and fold the size in.
    static_cast<char*>(slot.block)[0] = static_cast<char>(r);
    static_cast<char*>(slot.block)[size - 1] = static_cast<char>(r >> 8);
    sim.checksum += size ^ (r >> 40);
    ++sim.allocations;
  }
  for (Temp& slot : window) FreeTemp(sim, slot);
}

__attribute__((noinline)) void UpdateEntities(Sim& sim, int frame) {
  auto& due = sim.dying[frame % kMaxLifetime];
  for (Entity* e : due) {
    sim.checksum += e->id;
    delete e;
    ++sim.frees;
  }
  due.clear();
  for (int i = 0; i < kSpawnsPerFrame; ++i) {
    auto* e = new Entity{};
    e->id = sim.rng.Next() & 0xffff;
    ++sim.allocations;
    int lifetime = static_cast<int>(sim.rng.Range(1, kMaxLifetime - 1));
    sim.dying[(frame + lifetime) % kMaxLifetime].push_back(e);
  }
}

// Stands for a scene-graph walk: the allocation sites sit kSceneDepth calls
// below the frame loop, so stacks are about as deep as a game's.
__attribute__((noinline)) void WalkScene(Sim& sim, int frame, int allocs, int depth) {
  if (depth > 0) {
    WalkScene(sim, frame, allocs, depth - 1);
    asm volatile("" ::: "memory");  // keeps the recursion a real call
    return;
  }
  MakeTemporaries(sim, allocs / 2);
  UpdateEntities(sim, frame);
  MakeTemporaries(sim, allocs - allocs / 2);
}

// The level's blocks: 4 KiB..1 MiB, every page touched so RSS is real.
struct Level {
  std::vector<void*> blocks;
};

__attribute__((noinline)) void LoadLevel(Sim& sim, Level& next, int mb) {
  next.blocks.clear();
  uint64_t budget = static_cast<uint64_t>(mb) << 20;
  for (uint64_t used = 0; used < budget;) {
    size_t size = static_cast<size_t>(sim.rng.Range(4096, 1 << 20));
    void* block = malloc(size);
    if (!block) abort();
    memset(block, static_cast<int>(size & 0xff), size);
    next.blocks.push_back(block);
    sim.checksum += size;
    ++sim.allocations;
    used += size;
  }
}

__attribute__((noinline)) void UnloadLevel(Sim& sim, Level& level) {
  for (void* block : level.blocks) {
    free(block);
    ++sim.frees;
  }
  level.blocks.clear();
}

void FreeAllEntities(Sim& sim) {
  for (auto& bucket : sim.dying) {
    for (Entity* e : bucket) {
      delete e;
      ++sim.frees;
    }
    bucket.clear();
  }
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
    if (!strcmp(a, "--frames")) target = &o->frames;
    else if (!strcmp(a, "--threads")) target = &o->threads;
    else if (!strcmp(a, "--allocs")) target = &o->allocs, min = 0;
    else if (!strcmp(a, "--level-every")) target = &o->level_every;
    else if (!strcmp(a, "--level-mb")) target = &o->level_mb, min = 0;
    if (!target || i + 1 >= argc || !ParseInt(argv[++i], min, target)) {
      fprintf(stderr,
              "usage: game_loop_workload [--frames N] [--threads T] [--allocs K]"
              " [--level-every F] [--level-mb MB]\n");
      return false;
    }
  }
  return true;
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

  std::vector<Sim> sims;
  sims.reserve(static_cast<size_t>(opt.threads));
  for (int t = 0; t < opt.threads; ++t) sims.emplace_back(0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1));
  Level levels[2];
  for (Level& l : levels) l.blocks.reserve(static_cast<size_t>(opt.level_mb) * 4 + 16);
  std::vector<uint64_t> frame_us;
  frame_us.reserve(static_cast<size_t>(opt.frames));

  // Helper threads do their frame's churn, then meet the main thread at the
  // barrier; the main thread presents once everyone is done, like a job
  // system that joins before the swap.
  std::barrier sync(opt.threads);
  std::vector<std::thread> helpers;
  for (int t = 1; t < opt.threads; ++t) {
    helpers.emplace_back([&, t] {
      for (int f = 0; f < opt.frames; ++f) {
        WalkScene(sims[static_cast<size_t>(t)], f, opt.allocs, kSceneDepth);
        sync.arrive_and_wait();
      }
    });
  }

  Sim& main_sim = sims[0];
  int current = 0;
  for (int f = 0; f < opt.frames; ++f) {
    auto start = std::chrono::steady_clock::now();
    if (opt.level_mb > 0 && f % opt.level_every == 0) {
      LoadLevel(main_sim, levels[current ^ 1], opt.level_mb);
      UnloadLevel(main_sim, levels[current]);
      current ^= 1;
    }
    WalkScene(main_sim, f, opt.allocs, kSceneDepth);
    sync.arrive_and_wait();
    if (swap) swap(nullptr);
    auto end = std::chrono::steady_clock::now();
    frame_us.push_back(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(end - start).count()));
  }
  for (std::thread& h : helpers) h.join();
  UnloadLevel(main_sim, levels[current]);

  uint64_t checksum = 0, allocations = 0, frees = 0;
  for (Sim& s : sims) {
    FreeAllEntities(s);
    checksum = checksum * 31 + s.checksum;
    allocations += s.allocations;
    frees += s.frees;
  }
  printf("frames=%d threads=%d allocations=%" PRIu64 " frees=%" PRIu64 " checksum=%016" PRIx64 "\n", opt.frames,
         opt.threads, allocations, frees, checksum);
  printf("frame_time_us p50=%" PRIu64 " p99=%" PRIu64 "\n", Percentile(frame_us, 0.50), Percentile(frame_us, 0.99));
  // Our own peak, not the tool's: outside tools (time -f %M, wait4) see the
  // largest process of the tree, which may be the recorder or the profiler.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // CPU of this process (a profiler's in-process threads included): the
  // tool's own processes are what the tree used beyond this.
  auto ms = [](const timeval& tv) { return static_cast<long>(tv.tv_sec) * 1000 + tv.tv_usec / 1000; };
  printf("peak_rss_kb=%ld cpu_ms=%ld\n", usage.ru_maxrss, ms(usage.ru_utime) + ms(usage.ru_stime));
  return allocations == frees ? 0 : 1;
}
