// The Linux side of capture/clock.h: the invariant TSC on x86-64, else
// CLOCK_MONOTONIC; clock_gettime (vDSO) for the ns the clock sync pairs with.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace memframe::agent {

inline uint64_t Ticks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
#endif
}

// A tick that cannot be read before the instructions ahead of it have
// completed. rdtsc alone may execute early (it is not ordered), and then a
// block handed to another thread could be stamped freed before it was
// allocated. lfence orders it, as the kernel's rdtsc_ordered does, at ~6 ns
// a read. The malloc and new/delete hooks do without it: the analysis's
// merge undoes those rare races (viewer/analysis/src/handoff_repair.h).
// Rarer events (realloc, mmap, frame ends, marks) keep the fence.
inline uint64_t OrderedTicks() {
#if defined(__x86_64__)
  _mm_lfence();
  return __rdtsc();
#else
  return Ticks();
#endif
}

// The wire sends time stamps in units of 2^kTickShift ticks
// (EventBatch.tick_shift): 1024 TSC ticks are 0.2-1 us at 1-5 GHz, 1 us
// elsewhere, what a frame's timeline shows; finer digits cost a capture
// 0.3-0.5 bytes an event (tests/bench/README.md, "wire protocol 5"). Allocator
// times go in units of 2^kDurationShift ticks (EventBatch.duration_shift):
// 16 TSC ticks are 3-16 ns, 8 ns elsewhere, so a fast malloc of 20-30 ticks
// keeps its time; finer digits are what an unfenced rdtsc cannot tell apart
// (it may run tens of cycles early).
#if defined(__x86_64__)
constexpr uint32_t kTickShift = 10;
constexpr uint32_t kDurationShift = 4;
#else
constexpr uint32_t kTickShift = 10;
constexpr uint32_t kDurationShift = 3;
#endif

inline uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace memframe::agent
