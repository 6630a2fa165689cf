// A game-style arena: anonymous mappings made, grown with mremap and
// released, plus a file mapping that must not count as an allocation.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include "host_truth.h"

using namespace memframe::targets;

int main() {
  void* arenas[kArenaCount];
  for (int i = 0; i < kArenaCount; ++i)
    arenas[i] = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(arenas[0], kArenaBytes);
  void* grown = mremap(arenas[1], kArenaBytes, kGrownArenaBytes, MREMAP_MAYMOVE);
  int fd = open("/proc/self/exe", O_RDONLY);
  void* file = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  std::printf("arena ok %d\n", grown != MAP_FAILED && file != MAP_FAILED);
  munmap(file, 4096);
  close(fd);
  return 0;
}
