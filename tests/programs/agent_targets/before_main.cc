// Allocations before main: in a linked library's constructor and in this
// program's own static initialisers.
#include <cstdio>
#include <cstdlib>

#include "host_truth.h"

extern "C" int early_lib_linked();

namespace {
struct StaticInit {
  StaticInit() {
    for (int i = 0; i < memframe::targets::kStaticInitBlocks; ++i) block = malloc(memframe::targets::kStaticInitSize);
  }
  void* volatile block = nullptr;
} g_static_init;
}  // namespace

int main() {
  std::printf("before_main %d\n", early_lib_linked());
  return 0;
}
