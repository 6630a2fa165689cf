// Microbenchmarks of the agent's allocation path.
//
// Two kinds live here:
//
//  * In-process pieces of the hook path, measured by calling the agent core
//    directly (no preload, no recorder): stack capture at a known depth,
//    stack interning (hit and miss), and RecordAlloc/RecordFree, i.e. what a
//    hook does once the real allocator has returned. Their ring is emptied
//    by the benchmark itself, which stands for a writer that keeps up.
//
//  * `BM_EncodeBatch`: the agent's writer thread encoding one 32 Ki-event
//    batch of a game-shaped stream into protocol-3 columns (the sink
//    discards the bytes), in ns an event: the writer's share of the cost.
//
//  * `*Pair` benchmarks: a plain malloc/free or new/delete pair and nothing
//    else. Run natively they give the allocator's cost; run under
//    `memframe run` (compare.py does both) the difference is the whole
//    recorded cost of two events: guard, clocks, unwinding, interning, the
//    ring, and any wait on a writer that falls behind.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "agent_ring_records.h"
#include "buffer/thread_buffer.h"
#include "call_depth.h"
#include "capture/clock.h"
#include "capture/recorder.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "memframe.pb.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "writer/packet_encoder.h"
#include "writer/socket_sink.h"

namespace {

using memframe::bench::CallAtDepth;
namespace agent = memframe::agent;
namespace wire = memframe::wire;

// Runs `body` from `depth` frames of the call_depth library.
template <typename Body>
void RunAtDepth(int depth, Body& body) {
  CallAtDepth(depth, [](void* arg) { (*static_cast<Body*>(arg))(); }, &body);
}

// Call depth of the Pair benchmarks' allocation site: with the benchmark
// runner's own frames below it, stacks are 16 frames or more, cut at the
// recorder's --stack-depth (32 by default).
constexpr int kPairCallDepth = 16;

void InitAgentCore() {
  static const bool ready = [] {
    agent::InitStackCapture();
    return agent::InitStackTable();
  }();
  if (!ready) abort();
}

// Empties the calling thread's ring, as a writer that keeps up would. Done
// every kDrainEvery events so it is a small share of the measured time.
constexpr uint64_t kDrainEvery = 1024;
void DrainOwnRing() {
  agent::ThreadBuffer* b = agent::CurrentThreadBuffer();
  b->head.store(b->tail.load(std::memory_order_relaxed), std::memory_order_release);
}

// ---- stack capture -------------------------------------------------------

void BM_CaptureStack(benchmark::State& state) {
  InitAgentCore();
  const int depth = static_cast<int>(state.range(0));
  int captured = 0;
  auto body = [&] {
    uint64_t frames[agent::kMaxStackDepth];
    for (auto _ : state) {
      captured = agent::CaptureStack(frames, depth);
      benchmark::DoNotOptimize(frames);
    }
  };
  // The frames below the recursion (runner, main, libc) only add depth, so
  // `depth` levels are enough to fill `depth` slots.
  RunAtDepth(depth, body);
  state.counters["frames"] = captured;
  if (captured != depth) state.SkipWithError("captured fewer frames than asked");
}
BENCHMARK(BM_CaptureStack)->Arg(4)->Arg(16)->Arg(32)->Arg(64);

// The same with the agent's cached unwinder switched off: libunwind alone,
// as before it (and as whenever the cached unwinder declines a stack).
void BM_CaptureStackLibunwind(benchmark::State& state) {
  InitAgentCore();
  agent::SetFastUnwind(false);
  BM_CaptureStack(state);
  agent::SetFastUnwind(true);
}
BENCHMARK(BM_CaptureStackLibunwind)->Arg(16)->Arg(32);

// ---- interning ------------------------------------------------------------

// A made-up stack of code addresses: the table only hashes and compares.
void FakeStack(uint64_t* frames, int depth, uint64_t salt) {
  for (int i = 0; i < depth; ++i) frames[i] = 0x400000 + 0x40 * static_cast<uint64_t>(i) + (salt << 20);
}

void BM_InternHit(benchmark::State& state) {
  InitAgentCore();
  const int depth = static_cast<int>(state.range(0));
  uint64_t frames[agent::kMaxStackDepth];
  FakeStack(frames, depth, 1);
  const uint32_t id = agent::InternStack(frames, depth);
  for (auto _ : state) benchmark::DoNotOptimize(agent::InternStack(frames, depth));
  if (id == 0) state.SkipWithError("stack table refused the stack");
}
BENCHMARK(BM_InternHit)->Arg(16)->Arg(32);

// Every iteration interns a stack never seen before. The table is global and
// bounded (3 M stacks), so the iteration count is fixed rather than timed.
void BM_InternMiss(benchmark::State& state) {
  InitAgentCore();
  const int depth = static_cast<int>(state.range(0));
  static uint64_t salt = 1000;
  uint64_t frames[agent::kMaxStackDepth];
  for (auto _ : state) {
    FakeStack(frames, depth, ++salt);
    benchmark::DoNotOptimize(agent::InternStack(frames, depth));
  }
  if (agent::StacksOverflowed() != 0) state.SkipWithError("stack table full: misses were not measured");
}
BENCHMARK(BM_InternMiss)->Arg(16)->Iterations(200000);

// ---- the hook's recording step -------------------------------------------

void ConfigureDepth(const benchmark::State& state) {
  InitAgentCore();
  agent::ConfigureCapture(static_cast<int>(state.range(0)), true, false);
}

constexpr uint32_t kAllocKind = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);

// The recording benchmarks' loop: `record(guard, &n)` records the n-th
// allocation, from state.range(0) frames of the call_depth library, the
// thread's ring emptied every kDrainEvery events.
template <typename Record>
void RecordAllocsAtDepth(benchmark::State& state, Record record) {
  auto body = [&] {
    agent::RecursionGuard guard;
    uint64_t n = 0;
    for (auto _ : state) {
      record(guard, &n);
      if (++n % kDrainEvery == 0) DrainOwnRing();
    }
    DrainOwnRing();
  };
  RunAtDepth(static_cast<int>(state.range(0)), body);
  state.SetItemsProcessed(state.iterations());
}

// What a malloc hook adds after the real call: capture + intern (a hit, the
// same site every time) + one Event into the ring. Per event, per thread.
void BM_RecordAlloc(benchmark::State& state) {
  RecordAllocsAtDepth(state, [](const agent::RecursionGuard& guard, uint64_t* n) {
    agent::RecordAlloc(guard, n, 64, kAllocKind, agent::Ticks(), 0);
  });
}
BENCHMARK(BM_RecordAlloc)->Setup(ConfigureDepth)->Arg(4)->Arg(16)->Arg(32)->UseRealTime();
// Two threads at once: interning hits only read shared memory and each
// thread has its own ring, so the per-thread cost should not rise.
BENCHMARK(BM_RecordAlloc)->Setup(ConfigureDepth)->Arg(16)->Threads(2)->UseRealTime();

// BM_RecordAlloc/16 with libunwind alone.
void BM_RecordAllocLibunwind(benchmark::State& state) {
  agent::SetFastUnwind(false);
  BM_RecordAlloc(state);
  agent::SetFastUnwind(true);
}
BENCHMARK(BM_RecordAllocLibunwind)->Setup(ConfigureDepth)->Arg(16)->UseRealTime();

// As a hook calls it: from the hook's own frame, where the walk starts
// (here a function of the benchmark's, one per call site `Site`).
template <int Site>
__attribute__((noinline)) void RecordAtSite(const agent::RecursionGuard& guard, uint64_t* n) {
  agent::RecordAlloc(guard, n, 64, kAllocKind, agent::Ticks(), 0, __builtin_frame_address(0));
  asm volatile("" ::: "memory");  // a frame of its own, no tail call
}

// The same call site every time, as a game's loop allocates: the thread's
// memo of its last walks answers (stack_capture.h, StackMemo).
void BM_RecordAllocAtHook(benchmark::State& state) { RecordAllocsAtDepth(state, RecordAtSite<0>); }
BENCHMARK(BM_RecordAllocAtHook)->Setup(ConfigureDepth)->Arg(16)->Arg(32)->UseRealTime();

// Eight call sites in turn: more than the thread's recent stacks and memo
// hold, so every stack is walked and found in the shared table (what a
// hook costs where a game's sites vary more than its loop's).
void BM_RecordAllocManySites(benchmark::State& state) {
  RecordAllocsAtDepth(state, [](const agent::RecursionGuard& guard, uint64_t* n) {
    switch (*n % 8) {
      case 0: RecordAtSite<0>(guard, n); break;
      case 1: RecordAtSite<1>(guard, n); break;
      case 2: RecordAtSite<2>(guard, n); break;
      case 3: RecordAtSite<3>(guard, n); break;
      case 4: RecordAtSite<4>(guard, n); break;
      case 5: RecordAtSite<5>(guard, n); break;
      case 6: RecordAtSite<6>(guard, n); break;
      default: RecordAtSite<7>(guard, n); break;
    }
  });
}
BENCHMARK(BM_RecordAllocManySites)->Setup(ConfigureDepth)->Arg(16)->Arg(32)->UseRealTime();

// A free carries no stack: this is the floor of the recording step.
void BM_RecordFree(benchmark::State& state) {
  constexpr uint32_t kKind = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0);
  agent::RecursionGuard guard;
  uint64_t n = 0;
  for (auto _ : state) {
    agent::RecordFree(guard, &n, 0, kKind, agent::Ticks(), 0);
    if (++n % kDrainEvery == 0) DrainOwnRing();
  }
  DrainOwnRing();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordFree)->Arg(0)->UseRealTime();

// ---- the writer's encoder ------------------------------------------------

// A thread's events shaped like game_loop_workload's: temporaries of 16..4096
// bytes (at most 64 alive, freed in any order, their addresses reused
// newest first per size class as glibc's tcache hands them back), 10 call
// sites, ticks ~100 apart, a frame every 8000 events.
std::vector<agent::Event> GameShapedEvents(size_t count) {
  std::mt19937_64 rng(7);
  std::vector<agent::Event> out;
  std::vector<std::pair<uint64_t, uint64_t>> live;             // address, size
  std::vector<std::vector<uint64_t>> freed(wire::kSizeClasses);  // per class, reused newest first
  uint64_t ticks = 1'000'000, next_address = 0x555555600000, frame = 1;
  const uint32_t alloc_kind = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
  const uint32_t free_kind = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0);
  while (out.size() < count) {
    ticks += 60 + rng() % 120;
    if (out.size() % 8000 == 0) ++frame;
    agent::Event e{};
    e.ticks = ticks;
    e.duration = static_cast<uint32_t>(26 * (1 + rng() % 4));
    if (live.size() < 64 && (live.empty() || rng() % 2)) {
      e.size = 16 + rng() % 4081;
      auto& list = freed[wire::SizeClassOf(e.size)];
      if (!list.empty()) {
        e.address = list.back();
        list.pop_back();
      } else {
        e.address = next_address;
        next_address += (e.size + 31) & ~uint64_t{15};
      }
      e.stack_id = static_cast<uint32_t>(1 + rng() % 10);
      e.frame_kind = agent::PackFrameKind(frame, alloc_kind);
      live.push_back({e.address, e.size});
    } else {
      size_t k = rng() % live.size();
      e.address = live[k].first;
      freed[wire::SizeClassOf(live[k].second)].push_back(e.address);
      live[k] = live.back();
      live.pop_back();
      e.frame_kind = agent::PackFrameKind(frame, free_kind);
    }
    out.push_back(e);
  }
  return out;
}

void BM_EncodeBatch(benchmark::State& state) {
  constexpr int kBatch = 32768;
  static const std::vector<agent::Event> events = GameShapedEvents(kBatch);
  static const std::vector<agent::RingRecord> records = memframe::test_support::ToRingRecords(events.data(), kBatch);
  agent::SocketSink sink;
  if (!sink.Adopt(-1)) abort();  // no peer: every flush discards
  agent::ResetEventEncoder();
  for (auto _ : state) {
    agent::RecordReader reader;
    agent::EncodeEventBatch(sink, 1, records.data(), static_cast<int>(records.size()), 0, &reader);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["time_per_event"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kBatch,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EncodeBatch);

// ---- whole pairs (compare natively and under `memframe run`) -------------

struct Object96 {
  char bytes[96];
};

void BM_MallocFreePair(benchmark::State& state) {
  auto body = [&] {
    for (auto _ : state) {
      void* p = malloc(64);
      benchmark::DoNotOptimize(p);  // the pair must not be optimised away
      free(p);
    }
  };
  RunAtDepth(kPairCallDepth, body);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MallocFreePair)->UseRealTime();
BENCHMARK(BM_MallocFreePair)->Threads(2)->UseRealTime();

void BM_NewDeletePair(benchmark::State& state) {
  auto body = [&] {
    for (auto _ : state) {
      auto* p = new Object96;
      benchmark::DoNotOptimize(p);
      delete p;
    }
  };
  RunAtDepth(kPairCallDepth, body);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NewDeletePair)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
