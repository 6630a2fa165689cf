// Call stacks of the hooked call: the agent's own cached unwinder
// (fast_unwinder.h) where it answers, libunwind (cached per thread) otherwise.
#pragma once

#include <cstdint>

#include "memframe/format.h"

namespace memframe::agent {

constexpr int kMaxStackDepth = static_cast<int>(wire::kMaxStackDepth);  // readers refuse deeper stacks

// Records where the agent's own code lives, so its frames can be cut off the
// top of every stack whatever the compiler inlined.
void InitStackCapture();

// Fills frames[0..n) with return addresses, innermost first, starting at the
// caller of the hooked function. Returns n (0 when unwinding failed).
// `hook_frame`, if known, is the hook's __builtin_frame_address(0): the
// unwind starts there instead of walking the agent's own frames.
int CaptureStack(uint64_t* frames, int max_depth, const void* hook_frame = nullptr);

// After a module was unloaded (dlclose): no cached unwind rule may outlive it.
void ModulesUnloaded();

// Tests and benchmarks: false makes CaptureStack use libunwind only.
void SetFastUnwind(bool enabled);

}  // namespace memframe::agent
