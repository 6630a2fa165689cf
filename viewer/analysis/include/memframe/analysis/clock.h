// Turns the agent's event clock (ticks) into CLOCK_MONOTONIC nanoseconds.
//
// Ticks are the TSC on x86-64 and nanoseconds elsewhere. Hello and the
// ClockSync packets pair ticks with CLOCK_MONOTONIC; the rate comes from the
// first and the last pair (FORMAT.md), which averages out the jitter of each
// individual reading.
#pragma once

#include <cstdint>

namespace memframe::analysis {

class Clock {
 public:
  // Adds one (ticks, monotonic ns) pair. Order does not matter.
  void AddPair(uint64_t ticks, uint64_t monotonic_ns);

  // False until two pairs with different ticks were seen; the converter then
  // assumes one tick is one nanosecond (true off x86-64).
  bool calibrated() const;
  double ns_per_tick() const;

  // CLOCK_MONOTONIC time of `ticks` (0-based ticks when no pair was seen).
  int64_t ToNs(uint64_t ticks) const;
  // The inverse: the tick of CLOCK_MONOTONIC time `ns` (clamped at 0).
  uint64_t ToTicks(int64_t ns) const;
  // Length of a span of `ticks`, rounded to the nearest nanosecond.
  uint64_t DurationNs(uint64_t ticks) const;

 private:
  bool has_pair_ = false;
  uint64_t first_ticks_ = 0, first_ns_ = 0;
  uint64_t last_ticks_ = 0, last_ns_ = 0;
};

}  // namespace memframe::analysis
