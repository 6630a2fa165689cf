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

  // The two pairs it keeps, as the summary index stores them (summary_index.h).
  struct Pairs {
    bool has_pair = false;
    uint64_t first_ticks = 0, first_ns = 0, last_ticks = 0, last_ns = 0;
  };
  Pairs pairs() const { return {has_pair_, first_ticks_, first_ns_, last_ticks_, last_ns_}; }
  static Clock FromPairs(const Pairs& p) {
    Clock c;
    c.has_pair_ = p.has_pair;
    c.first_ticks_ = p.first_ticks, c.first_ns_ = p.first_ns, c.last_ticks_ = p.last_ticks, c.last_ns_ = p.last_ns;
    return c;
  }

 private:
  bool has_pair_ = false;
  uint64_t first_ticks_ = 0, first_ns_ = 0;
  uint64_t last_ticks_ = 0, last_ns_ = 0;
};

}  // namespace memframe::analysis
