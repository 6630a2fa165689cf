// Frees a block with the wrong function twice, from two named functions:
// new[] released with free(), malloc released with delete. (glibc's new
// is malloc underneath, so the program runs; the mismatch is still a bug.)
#include <cstdio>
#include <cstdlib>
#include <new>

__attribute__((noinline)) static int* MakeScores() { return new int[4]; }
__attribute__((noinline)) static void DropScores(int* scores) { free(scores); }
__attribute__((noinline)) static void* MakeBuffer() { return malloc(32); }
__attribute__((noinline)) static void DropBuffer(void* buffer) { operator delete(buffer); }

int main() {
  DropScores(MakeScores());
  DropBuffer(MakeBuffer());
  std::printf("mismatched\n");
  return 0;
}
