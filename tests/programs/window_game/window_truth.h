// What memframe_window_game allocates, frame by frame: the truth the kept
// window's test (tests/integration/kept_window_test.cpp) checks against.
#pragma once

#include <cstdint>

namespace memframe::window_game {

constexpr uint64_t kFrames = 600;
// Frame f (0-based, as the agent numbers them) allocates BlocksIn(f) blocks
// of BlockSize(f) bytes and frees them all before its frame mark, except the
// leaks below. Frame 0 also holds what the C library allocates at start.
constexpr uint64_t BlocksIn(uint64_t f) { return 1 + f % 7; }
constexpr uint64_t BlockSize(uint64_t f) { return 100 + f; }
// Two blocks are never freed: one early, one late.
constexpr uint64_t kEarlyLeakFrame = 10, kEarlyLeakBytes = 4096;
constexpr uint64_t kLateLeakFrame = 590, kLateLeakBytes = 8192;

constexpr uint64_t AllocsIn(uint64_t f) {
  return BlocksIn(f) + (f == kEarlyLeakFrame || f == kLateLeakFrame);
}
constexpr uint64_t BytesIn(uint64_t f) {
  return BlocksIn(f) * BlockSize(f) + (f == kEarlyLeakFrame ? kEarlyLeakBytes : 0) +
         (f == kLateLeakFrame ? kLateLeakBytes : 0);
}
constexpr uint64_t FreesIn(uint64_t f) { return BlocksIn(f); }

}  // namespace memframe::window_game
