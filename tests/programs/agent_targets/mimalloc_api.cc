// A program that calls mimalloc's own API (Debian's libmimalloc.so, linked
// dynamically, which also takes over malloc): the agent hooks mi_* as it
// hooks malloc, and records each call once, also where mimalloc's malloc
// family forwards to its mi_* exports (posix_memalign to mi_posix_memalign).
// The calls and their bytes are in host_truth.h.
#include <mimalloc.h>
#include <stdlib.h>

#include "allocator_api_rounds.h"

using namespace memframe::targets;

namespace {

__attribute__((noinline)) void UseAllocatorApi() {
  void* a = mi_malloc(100);
  Touch(a, 100);
  void* b = mi_calloc(4, 25);
  Touch(b, 100);
  void* c = mi_zalloc(50);
  Touch(c, 50);
  void* d = mi_malloc_aligned(64, 64);
  Touch(d, 64);
  void* e = mi_new(80);
  Touch(e, 80);
  a = mi_realloc(a, 200);
  Touch(a, 200);
  void* f = nullptr;
  if (posix_memalign(&f, 64, 96) != 0) abort();
  Touch(f, 96);
  void* g = malloc(30);
  Touch(g, 30);
  mi_free(a);
  mi_free(b);
  mi_free_size(c, 50);
  mi_free(d);
  mi_free(e);
  free(f);
  free(g);
}

}  // namespace

int main() { return RunApiRounds(UseAllocatorApi, "mimalloc api done"); }
