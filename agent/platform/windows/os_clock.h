// The Windows side of capture/clock.h: the same invariant TSC for events;
// QueryPerformanceCounter for the monotonic ns the clock sync pairs it with.
#pragma once

#include <windows.h>
#include <x86intrin.h>

#include <cstdint>

namespace memframe::agent {

inline uint64_t Ticks() { return __rdtsc(); }

inline uint64_t OrderedTicks() {
  _mm_lfence();
  return __rdtsc();
}

constexpr uint32_t kTickShift = 10;
constexpr uint32_t kDurationShift = 4;

inline uint64_t MonotonicNs() {
  static LARGE_INTEGER frequency = [] {
    LARGE_INTEGER f;
    QueryPerformanceFrequency(&f);
    return f;
  }();
  LARGE_INTEGER now;
  QueryPerformanceCounter(&now);
  uint64_t t = static_cast<uint64_t>(now.QuadPart), f = static_cast<uint64_t>(frequency.QuadPart);
  return t / f * 1000000000ull + t % f * 1000000000ull / f;
}

// FILETIME counts 100 ns from 1601; Unix time from 1970.
inline uint64_t RealtimeNs() {
  FILETIME ft;
  GetSystemTimeAsFileTime(&ft);
  uint64_t t = (static_cast<uint64_t>(ft.dwHighDateTime) << 32) | ft.dwLowDateTime;
  return (t - 116444736000000000ull) * 100;
}

}  // namespace memframe::agent
