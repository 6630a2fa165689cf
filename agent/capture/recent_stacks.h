// Per thread, the last few stacks interned and their ids. A game allocates
// from the same few call sites again and again; a stack equal to one of
// them (compared whole, in the thread's own memory) skips the hash and the
// shared table, whose slots sit at random places in 64 MiB.
#pragma once

#include <cstdint>

#include "capture/stack_capture.h"

namespace memframe::agent {

struct RecentStacks {
  static constexpr int kEntries = 4;
  uint32_t id[kEntries] = {};   // 0 = empty
  int depth[kEntries] = {};
  uint32_t next = 0;            // round-robin replacement
  uint64_t frames[kEntries][kMaxStackDepth];
};

// The same id InternStack(frames, depth) gives, from `recent` when the stack
// is one of its entries (then remembered there). depth must be >= 1. Only
// the owning thread may use `recent`.
uint32_t InternStackRecent(RecentStacks& recent, const uint64_t* frames, int depth);

}  // namespace memframe::agent
