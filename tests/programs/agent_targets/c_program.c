/* A C program: it links no C++ runtime, so the libstdc++ that the agent
   brings must not show in its figures (its emergency pool, allocated in
   libstdc++'s constructor, is the agent's). It makes 10 blocks of 100 + i
   bytes and frees them all. */
#include <stdio.h>
#include <stdlib.h>

enum { C_PROGRAM_BLOCKS = 10 };

int main(void) {
  void* blocks[C_PROGRAM_BLOCKS];
  for (int i = 0; i < C_PROGRAM_BLOCKS; ++i) blocks[i] = malloc(100 + (size_t)i);
  for (int i = 0; i < C_PROGRAM_BLOCKS; ++i) free(blocks[i]);
  printf("c program done\n");
  return 0;
}
