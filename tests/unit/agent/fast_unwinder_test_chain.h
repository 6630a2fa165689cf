// Call chains for fast_unwinder_test.cc: each letter of a pattern is one
// frame of a different shape, from helper files built with and without
// frame pointers and from shared libraries, so the agent's unwinder meets
// every kind of CFI a compiler emits for ordinary code.
#pragma once

#include <cstdint>

namespace memframe::agent::unwind_test {

struct Chain {
  const char* pattern;  // what is left to call, one letter a frame
  void (*probe)(Chain*);  // called at the end of the pattern
  void* result;
  int size;  // frames to ask for
  uint64_t sink;  // keeps work from being optimised away
};

// Calls the frame of pattern[0] (or the probe at the end).
void Next(Chain* c);

// -fno-omit-frame-pointer (fast_unwinder_test_fp.cc)
void FpPlain(Chain* c);
void FpAlloca(Chain* c);
void FpManyArgs(Chain* c);
// -fomit-frame-pointer (fast_unwinder_test_nofp.cc)
void NoFpPlain(Chain* c);
void NoFpAlloca(Chain* c);
void NoFpManyArgs(Chain* c);
void NoFpBigFrame(Chain* c);
void NoFpHugeFrame(Chain* c);
void NoFpEarlyReturn(Chain* c);
void NoFpRecursion(Chain* c);

}  // namespace memframe::agent::unwind_test

// The shared libraries' entry (fast_unwinder_test_lib.cc), C linkage so it
// can also be found with dlsym.
extern "C" __attribute__((visibility("default"))) void memframe_unwind_test_lib_step(
    memframe::agent::unwind_test::Chain* c, void (*next)(memframe::agent::unwind_test::Chain*));
