#include "call_depth.h"

namespace memframe::bench {

// noinline plus the empty asm after the call (and -fno-optimize-sibling-calls
// in the build) keep every level a real frame with its own return address:
// a tail call would collapse the recursion into a loop.
__attribute__((noinline)) void CallAtDepth(int depth, DepthFn fn, void* arg) {
  if (depth <= 1) {
    fn(arg);
  } else {
    CallAtDepth(depth - 1, fn, arg);
  }
  asm volatile("" ::: "memory");
}

}  // namespace memframe::bench
