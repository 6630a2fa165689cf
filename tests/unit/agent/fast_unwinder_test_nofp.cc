// Built with -fomit-frame-pointer: frames whose CFA is rsp + an offset that
// changes through the function (pushes, stack arguments, big frames), and
// rbp used as an ordinary register.
#include <alloca.h>

#include "fast_unwinder_test_chain.h"

namespace memframe::agent::unwind_test {

#define KEEP_FRAME() asm volatile("" ::: "memory")  // no tail call

__attribute__((noinline)) void NoFpPlain(Chain* c) {
  Next(c);
  KEEP_FRAME();
}

// alloca makes GCC set up rbp even here: CFA = rbp + 16.
__attribute__((noinline)) void NoFpAlloca(Chain* c) {
  auto* p = static_cast<volatile char*>(alloca(32 + (c->sink & 0x1ff)));
  p[0] = 2;
  Next(c);
  c->sink += p[0];
  KEEP_FRAME();
}

// Stack arguments: the CFA offset moves around the call.
__attribute__((noinline)) static void NoFpManyArgsCallee(Chain* c, long a, long b, long d, long e, long f, long g,
                                                          long h, long i, long j, long k) {
  c->sink += a + b + d + e + f + g + h + i + j + k;
  Next(c);
  KEEP_FRAME();
}

__attribute__((noinline)) void NoFpManyArgs(Chain* c) {
  long x = static_cast<long>(c->sink);
  NoFpManyArgsCallee(c, x, x + 1, x + 2, x + 3, x + 4, x + 5, x * 3, x * 5, x * 7, x * 11);
  KEEP_FRAME();
}

__attribute__((noinline)) void NoFpBigFrame(Chain* c) {
  volatile char buf[5000];
  buf[0] = 3;
  buf[4999] = 4;
  Next(c);
  c->sink += buf[0] + buf[4999];
  KEEP_FRAME();
}

// A CFA offset too large for the cache's rule: the unwinder must decline.
__attribute__((noinline)) void NoFpHugeFrame(Chain* c) {
  volatile char buf[40000];
  buf[0] = 5;
  buf[39999] = 6;
  Next(c);
  c->sink += buf[0] + buf[39999];
  KEEP_FRAME();
}

// Callee-saved registers live across the call and an early exit: GCC emits
// remember_state / restore_state around the first epilogue.
__attribute__((noinline)) void NoFpEarlyReturn(Chain* c) {
  uint64_t a = c->sink * 3, b = c->sink ^ 0x55, d = c->sink + 7, e = c->sink * 13;
  if (c->pattern == nullptr) return;
  Next(c);
  c->sink += a * b + d * e;
  KEEP_FRAME();
}

// Recursion of its own: consumes the following digit as a count.
__attribute__((noinline)) void NoFpRecursion(Chain* c) {
  uint64_t keep = c->sink + 1;
  Next(c);
  c->sink += keep;
  KEEP_FRAME();
}

}  // namespace memframe::agent::unwind_test
