// exec in its forms: a failed exec (the program goes on), then an exec of
// itself into stage two. Each stage allocates blocks of its own size.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

using namespace memframe::targets;

static void* volatile g_keep;

static void Allocate(int blocks, size_t size) {
  for (int i = 0; i < blocks; ++i) g_keep = malloc(size);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "stage2") == 0) {
    Allocate(kExecStage2Blocks, kExecStage2Size);
    std::printf("stage2\n");
    return 0;
  }
  Allocate(kExecStage1Blocks, kExecStage1Size);
  char* missing[] = {const_cast<char*>("/nonexistent/memframe"), nullptr};
  int rc = execv(missing[0], missing);
  Allocate(kExecAfterFailureBlocks, kExecAfterFailureSize);
  std::printf("failed exec returned %d\n", rc);
  std::fflush(stdout);
  execl("/proc/self/exe", argv[0], "stage2", static_cast<char*>(nullptr));
  return 99;  // not reached
}
