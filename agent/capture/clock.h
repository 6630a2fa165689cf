// The event clock. On x86-64 the invariant TSC: a few ns to read, synchronised
// across cores, so events of different threads can be ordered by it without
// sharing any counter between threads. Elsewhere CLOCK_MONOTONIC in ns.
//
// Each platform defines Ticks(), OrderedTicks(), kTickShift, kDurationShift,
// MonotonicNs() and RealtimeNs() in its os_clock.h, in agent/platform/<os>/,
// the folder the build puts on the include path.
#pragma once

#include "os_clock.h"
