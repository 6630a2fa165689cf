/* Code without unwind tables (built with -fno-asynchronous-unwind-tables):
   a stack through it is walked by frame pointers, which libunwind checks
   address by address. */
#include <stdlib.h>

__attribute__((noinline)) static void Leaf(int i) {
  void* volatile block = malloc(64 + (size_t)(i % 8));
  free(block);
}

__attribute__((noinline)) void AllocateWithoutUnwindTables(int rounds) {
  for (int i = 0; i < rounds; ++i) Leaf(i);
}
