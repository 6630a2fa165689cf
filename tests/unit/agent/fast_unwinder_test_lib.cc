// A shared library frame (built twice, with and without frame pointers, so a
// dlclose'd library can be replaced by different code at the same address).
#include "fast_unwinder_test_chain.h"

using memframe::agent::unwind_test::Chain;

#ifdef MEMFRAME_TEST_LIB_PAD
// Moves the entry point, so the return address of the second build lands
// where the first build has different code.
extern "C" __attribute__((visibility("default"), noinline)) long memframe_unwind_test_lib_pad(long x) {
  long s = 0;
  for (long i = 0; i < x; ++i) s += i * i ^ (s >> 3);
  return s;
}
#endif

extern "C" __attribute__((noinline)) void memframe_unwind_test_lib_step(Chain* c, void (*next)(Chain*)) {
  volatile char buf[64 + MEMFRAME_TEST_LIB_FRAME];
  buf[0] = 1;
  next(c);
  c->sink += buf[0];
  asm volatile("" ::: "memory");
}
