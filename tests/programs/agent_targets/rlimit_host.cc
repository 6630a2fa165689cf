// A program under a tight address-space limit (RLIMIT_AS, `ulimit -v`): it
// sets the limit its argument names (MiB) and re-executes itself, so that
// the agent starts under it too, then takes 1 MiB blocks until malloc fails
// and prints how many it got. The agent's share of the limit is what the
// program gets less than natively.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

using namespace memframe::targets;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (argc == 2) {
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = std::strtoull(argv[1], nullptr, 10) << 20;
    if (setrlimit(RLIMIT_AS, &limit) != 0) return 3;
    char limited[] = "limited";
    char* again[] = {argv[0], argv[1], limited, nullptr};
    execv("/proc/self/exe", again);
    return 4;
  }
  size_t blocks = 0;
  while (void* block = malloc(kLimitBlockBytes)) {
    static_cast<char*>(block)[0] = 1;  // kept: every block counts against the limit
    ++blocks;
  }
  std::printf("%zu MiB\n", blocks * kLimitBlockBytes >> 20);
  return 0;
}
