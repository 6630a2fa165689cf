// A program whose executable defines the global operator new and delete, as
// engines do to route them to a heap of their own (here glibc's malloc, which
// the agent hooks too): the loader binds them before the agent's. The agent
// patches their entries (own_allocator_patch.h); the malloc inside each must
// not be recorded a second time. With --wait-for-attach it waits for
// `memframe attach` (own_allocator_workload.h).
#include <cstdio>
#include <cstdlib>
#include <new>

#include "own_allocator_workload.h"

using namespace memframe::targets;

#define OWN_ENTRY __attribute__((noinline))

OWN_ENTRY void* operator new(size_t size) {
  void* block = malloc(size ? size : 1);
  if (!block) throw std::bad_alloc();
  return block;
}
OWN_ENTRY void* operator new[](size_t size) {
  void* block = malloc(size ? size : 1);
  if (!block) throw std::bad_alloc();
  return block;
}
OWN_ENTRY void operator delete(void* block) noexcept { free(block); }
OWN_ENTRY void operator delete[](void* block) noexcept { free(block); }
OWN_ENTRY void operator delete(void* block, size_t) noexcept { free(block); }
OWN_ENTRY void operator delete[](void* block, size_t) noexcept { free(block); }

namespace {

// kOwnNewBlocks arrays of 100 + i bytes, each deleted at once.
__attribute__((noinline)) bool NewAndDelete() {
  for (int i = 0; i < kOwnNewBlocks; ++i) {
    char* array = new char[100 + static_cast<size_t>(i)];
    __asm__ volatile("" : : "r"(array) : "memory");
    delete[] array;
  }
  return true;
}
void* NewBlock(size_t size) { return new char[size]; }
void DeleteBlock(void* block) { delete[] static_cast<char*>(block); }

}  // namespace

int main(int argc, char** argv) {
  bool ok = WaitsForAttach(argc, argv) ? RunOwnAllocatorWorkloadOnCommand({NewAndDelete, NewBlock, DeleteBlock})
                                       : NewAndDelete();
  std::printf("own new %s\n", ok ? "done" : "failed");
  return ok ? 0 : 1;
}
