// Built with -fno-omit-frame-pointer: frames whose CFA is rbp + 16.
#include <alloca.h>

#include "fast_unwinder_test_chain.h"

namespace memframe::agent::unwind_test {

#define KEEP_FRAME() asm volatile("" ::: "memory")  // no tail call

__attribute__((noinline)) void FpPlain(Chain* c) {
  Next(c);
  KEEP_FRAME();
}

__attribute__((noinline)) void FpAlloca(Chain* c) {
  auto* p = static_cast<volatile char*>(alloca(16 + (c->sink & 0xff)));
  p[0] = 1;
  Next(c);
  c->sink += p[0];
  KEEP_FRAME();
}

__attribute__((noinline)) static void FpManyArgsCallee(Chain* c, long a, long b, long d, long e, long f, long g,
                                                        long h, long i, long j) {
  c->sink += a + b + d + e + f + g + h + i + j;
  Next(c);
  KEEP_FRAME();
}

__attribute__((noinline)) void FpManyArgs(Chain* c) {
  FpManyArgsCallee(c, 1, 2, 3, 4, 5, 6, static_cast<long>(c->sink), 8, 9);
  KEEP_FRAME();
}

}  // namespace memframe::agent::unwind_test
