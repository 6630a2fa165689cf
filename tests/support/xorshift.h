// A small deterministic pseudo-random sequence (xorshift64) for tests and
// tools that make data look like a real program's: addresses, sizes and
// times that vary, since a perfectly regular capture compresses far past
// anything real and readers refuse it as crafted.
#pragma once

#include <cstdint>

namespace memframe::test_support {

struct XorShift {
  uint64_t s;  // any value but 0
  uint64_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

}  // namespace memframe::test_support
