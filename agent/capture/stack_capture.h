// Call stacks of the hooked call, with libunwind's cached fast path.
#pragma once

#include <cstdint>

namespace memframe::agent {

constexpr int kMaxStackDepth = 64;

// Records where the agent's own code lives, so its frames can be cut off the
// top of every stack whatever the compiler inlined.
void InitStackCapture();

// Fills frames[0..n) with return addresses, innermost first, starting at the
// caller of the hooked function. Returns n (0 when unwinding failed).
int CaptureStack(uint64_t* frames, int max_depth);

}  // namespace memframe::agent
