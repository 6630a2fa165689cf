#include "memframe/analysis/clock.h"

#include <cmath>

namespace memframe::analysis {

void Clock::AddPair(uint64_t ticks, uint64_t monotonic_ns) {
  if (!has_pair_) {
    has_pair_ = true;
    first_ticks_ = last_ticks_ = ticks;
    first_ns_ = last_ns_ = monotonic_ns;
    return;
  }
  if (ticks < first_ticks_) {
    first_ticks_ = ticks;
    first_ns_ = monotonic_ns;
  }
  if (ticks > last_ticks_) {
    last_ticks_ = ticks;
    last_ns_ = monotonic_ns;
  }
}

bool Clock::calibrated() const { return has_pair_ && last_ticks_ > first_ticks_ && last_ns_ > first_ns_; }

double Clock::ns_per_tick() const {
  if (!calibrated()) return 1.0;
  return static_cast<double>(last_ns_ - first_ns_) / static_cast<double>(last_ticks_ - first_ticks_);
}

int64_t Clock::ToNs(uint64_t ticks) const {
  // Offsets are taken before converting to double so that large absolute
  // tick values do not lose precision.
  double offset = static_cast<double>(static_cast<int64_t>(ticks - first_ticks_)) * ns_per_tick();
  return static_cast<int64_t>(first_ns_) + static_cast<int64_t>(std::llround(offset));
}

uint64_t Clock::ToTicks(int64_t ns) const {
  double offset = static_cast<double>(ns - static_cast<int64_t>(first_ns_)) / ns_per_tick();
  int64_t ticks = static_cast<int64_t>(first_ticks_) + static_cast<int64_t>(std::llround(offset));
  return ticks < 0 ? 0 : static_cast<uint64_t>(ticks);
}

uint64_t Clock::DurationNs(uint64_t ticks) const {
  return static_cast<uint64_t>(std::llround(static_cast<double>(ticks) * ns_per_tick()));
}

}  // namespace memframe::analysis
