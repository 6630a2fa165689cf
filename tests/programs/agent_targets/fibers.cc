// A job system on fibers (ucontext), as some engines run their jobs: each
// fiber has a stack of its own, mapped with an inaccessible page below and
// above it, and allocates from there. A stack walk that reads past the
// fiber's first frame faults on the page above; memframe must give each
// allocation its stack (AllocateOnFiber <- FiberJob) and nothing more.
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "host_truth.h"

using namespace memframe::targets;

namespace {

constexpr size_t kFiberStackBytes = 256 * 1024;

ucontext_t g_main;
ucontext_t g_fibers[kFibers];
void* g_blocks[kFibers * kFiberRounds];
int g_made = 0;

__attribute__((noinline)) void AllocateOnFiber() {
  void* block = malloc(kFiberBlockSize);
  static_cast<volatile char*>(block)[0] = 1;
  g_blocks[g_made++] = block;
}

// Each round makes one block and yields back to the scheduler.
__attribute__((noinline)) void FiberJob(int index) {
  for (int round = 0; round < kFiberRounds; ++round) {
    AllocateOnFiber();
    swapcontext(&g_fibers[index], &g_main);
  }
}

void* MapFiberStack() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* region = static_cast<char*>(
      mmap(nullptr, kFiberStackBytes + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (region == MAP_FAILED || mprotect(region + page, kFiberStackBytes, PROT_READ | PROT_WRITE) != 0) {
    std::perror("fiber stack");
    std::exit(2);
  }
  return region + page;
}

// getcontext returns twice: in a function of its own, no local of a loop
// lives across it.
__attribute__((noinline)) void MakeFiber(int index) {
  getcontext(&g_fibers[index]);
  g_fibers[index].uc_stack.ss_sp = MapFiberStack();
  g_fibers[index].uc_stack.ss_size = kFiberStackBytes;
  g_fibers[index].uc_link = &g_main;
  makecontext(&g_fibers[index], reinterpret_cast<void (*)()>(FiberJob), 1, index);
}

}  // namespace

int main() {
  for (int i = 0; i < kFibers; ++i) MakeFiber(i);
  // Round-robin, as a scheduler would: every fiber runs its rounds to the end.
  for (int round = 0; round <= kFiberRounds; ++round)
    for (int i = 0; i < kFibers; ++i) swapcontext(&g_main, &g_fibers[i]);
  for (int i = 0; i < g_made; ++i) free(g_blocks[i]);
  std::printf("fibers made %d blocks\n", g_made);
  return g_made == kFibers * kFiberRounds ? 0 : 1;
}
