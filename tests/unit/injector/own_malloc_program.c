/* Defines malloc and free in the executable, as a game with its own heap
 * does: the loader binds them before the agent. Only inspected, never run
 * under memframe. */
#include <stddef.h>

static char heap[1 << 16];
static size_t used;

void* malloc(size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size > sizeof(heap) - used) return NULL;
  used += size;
  return heap + used - size;
}

void free(void* block) { (void)block; }

int main(void) { return malloc(16) ? 0 : 1; }
