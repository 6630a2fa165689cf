// A library whose constructor allocates, as engines and middleware do long
// before main.
#include <cstdlib>

#include "host_truth.h"

static void* volatile g_early_block;

__attribute__((constructor)) static void AllocateInConstructor() {
  for (int i = 0; i < memframe::targets::kEarlyLibBlocks; ++i) g_early_block = malloc(memframe::targets::kEarlyLibSize);
}

extern "C" int early_lib_linked() { return 1; }
