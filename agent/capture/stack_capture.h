// Call stacks of the hooked call: the agent's own cached unwinder
// (fast_unwinder.h) where it answers, libunwind (cached per thread) otherwise.
#pragma once

#include <cstdint>

#include "capture/fast_unwinder.h"
#include "memframe/format.h"

namespace memframe::agent {

constexpr int kMaxStackDepth = static_cast<int>(wire::kMaxStackDepth);  // readers refuse deeper stacks

struct RecentStacks;

// Per thread: the last few walks from a hook's frame (WalkTrace) and the ids
// of the stacks they gave. A hook called again from the same place, its
// callers' frames unchanged, is answered by checking the words the walk
// read, without walking or comparing frames: most hooks of a game loop are.
// Only the owning thread may use it.
struct StackMemo {
  static constexpr int kEntries = 4;
  uint32_t id[kEntries] = {};
  uint32_t next = 0;  // round-robin replacement
  WalkTrace walk[kEntries];

  // For a new thread: another thread's walks read another stack.
  void Forget() {
    for (WalkTrace& w : walk) w.frame = 0;
  }
};

// Records where the agent's own code lives, so its frames can be cut off the
// top of every stack whatever the compiler inlined.
void InitStackCapture();

// Fills frames[0..n) with return addresses, innermost first, starting at the
// caller of the hooked function. Returns n (0 when unwinding failed).
// `hook_frame`, if known, is the hook's __builtin_frame_address(0): the
// unwind starts there instead of walking the agent's own frames.
int CaptureStack(uint64_t* frames, int max_depth, const void* hook_frame = nullptr);

// The interned id (stack_table.h) of the stack CaptureStack(frames,
// max_depth, hook_frame) gives, 0 when there is none: from `memo` where it
// repeats a walk made lately (then remembered there), else captured and
// interned through the thread's `recent` stacks.
uint32_t CaptureStackId(StackMemo& memo, RecentStacks& recent, int max_depth, const void* hook_frame);

// After a module was unloaded (dlclose): no cached unwind rule may outlive it.
void ModulesUnloaded();

// Tests and benchmarks: false makes CaptureStack use libunwind only.
void SetFastUnwind(bool enabled);

}  // namespace memframe::agent
