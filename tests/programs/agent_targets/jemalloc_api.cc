// A program that calls jemalloc's own *allocx API, built twice: against
// Debian's libjemalloc.so, whose mallocx the agent hooks as it hooks malloc,
// and against its libjemalloc.a, whose entries in the executable the agent
// patches at launch. The calls and their bytes are in host_truth.h.
#include <jemalloc/jemalloc.h>

#include "allocator_api_rounds.h"

using namespace memframe::targets;

namespace {

__attribute__((noinline)) void UseAllocatorApi() {
  void* a = mallocx(100, 0);
  Touch(a, 100);
  void* b = mallocx(64, MALLOCX_ZERO);
  Touch(b, 64);
  a = rallocx(a, 200, 0);
  Touch(a, 200);
  if (xallocx(a, 210, 0, 0) < 210) abort();  // 200 bytes sit in the 224-byte size class
  Touch(a, 210);
  void* c = mallocx(48, MALLOCX_ALIGN(64));
  Touch(c, 48);
  sdallocx(a, 210, 0);
  dallocx(b, 0);
  sdallocx(c, 48, MALLOCX_ALIGN(64));
}

}  // namespace

int main() { return RunApiRounds(UseAllocatorApi, "jemalloc api done"); }
