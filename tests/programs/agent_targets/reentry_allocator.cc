// A program that defines the malloc family in its executable (the loader
// binds it before any preloaded library) and maps its heap with mmap while
// it holds its lock, as jemalloc and tcmalloc do. Any allocation made while
// that mmap is in progress on the same thread can only come from the agent's
// mmap hook, which must never allocate: the allocator aborts on it, so a hook
// that allocates (pthread_getattr_np, fopen, dlsym, printf...) fails this
// program at once instead of deadlocking a real one. With --wait-for-attach
// it waits for `memframe attach` (own_allocator_workload.h).
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "own_allocator_workload.h"

using namespace memframe::targets;

namespace {
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
__thread bool t_mapping = false;
char* g_chunk = nullptr;
size_t g_chunk_left = 0;
int g_chunks = 0;

void Reentered() {
  static const char message[] = "reentry_allocator: allocation from inside the allocator's own mmap\n";
  ssize_t ignored = write(2, message, sizeof message - 1);
  (void)ignored;
  abort();
}

// Blocks are carved from 1 MiB chunks, 16-byte aligned, with their size in
// the 16 bytes before them. Nothing is reused: a test program.
void* Carve(size_t size, size_t alignment) {
  if (t_mapping) Reentered();
  if (alignment < 16) alignment = 16;
  size_t need = size + alignment + 16;
  if (need > kOwnHeapChunkBytes / 2) {
    errno = ENOMEM;
    return nullptr;
  }
  pthread_mutex_lock(&g_lock);
  if (g_chunk_left < need) {
    t_mapping = true;
    void* chunk = mmap(nullptr, kOwnHeapChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    t_mapping = false;
    if (chunk == MAP_FAILED) {
      pthread_mutex_unlock(&g_lock);
      errno = ENOMEM;
      return nullptr;
    }
    g_chunk = static_cast<char*>(chunk);
    g_chunk_left = kOwnHeapChunkBytes;
    ++g_chunks;
  }
  uintptr_t start = reinterpret_cast<uintptr_t>(g_chunk) + 16;
  uintptr_t block = (start + alignment - 1) & ~(alignment - 1);
  size_t used = block + size - reinterpret_cast<uintptr_t>(g_chunk);
  used = (used + 15) & ~size_t{15};
  g_chunk += used;
  g_chunk_left -= used;
  pthread_mutex_unlock(&g_lock);
  reinterpret_cast<size_t*>(block)[-1] = size;
  return reinterpret_cast<void*>(block);
}

size_t SizeOf(void* block) { return block ? static_cast<size_t*>(block)[-1] : 0; }
}  // namespace

#ifdef MEMFRAME_REFUSED_ENTRIES
// target_refused_entries: malloc and free start with a call (the relocator
// refuses to move one, entry_trampolines.h) and go on to the real ones. The
// agent must say it could not hook them and leave the program unharmed.
extern "C" __attribute__((visibility("hidden"), used)) void* CarvedMalloc(size_t size) { return Carve(size, 16); }
extern "C" __attribute__((visibility("hidden"), used)) void CarvedFree(void* block) {
  if (t_mapping && block) Reentered();
}
// Aligned, so that at an attach too the relocator is what refuses them.
asm(".text\n"
    ".p2align 4\n.globl malloc\n.type malloc, @function\nmalloc:\n"
    "  call 1f\n1:\n  add $8, %rsp\n  jmp CarvedMalloc\n.size malloc, .-malloc\n"
    ".p2align 4\n.globl free\n.type free, @function\nfree:\n"
    "  call 2f\n2:\n  add $8, %rsp\n  jmp CarvedFree\n.size free, .-free\n");
#endif

extern "C" {
#ifndef MEMFRAME_REFUSED_ENTRIES
void* malloc(size_t size) { return Carve(size, 16); }
void free(void* block) {
  if (t_mapping && block) Reentered();
}
#endif
void* calloc(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* block = Carve(total, 16);
  if (block) memset(block, 0, total);
  return block;
}
void* realloc(void* old, size_t size) {
  void* fresh = Carve(size, 16);
  if (fresh && old) memcpy(fresh, old, SizeOf(old) < size ? SizeOf(old) : size);
  return fresh;
}
void* memalign(size_t alignment, size_t size) { return Carve(size, alignment); }
void* aligned_alloc(size_t alignment, size_t size) { return Carve(size, alignment); }
int posix_memalign(void** out, size_t alignment, size_t size) {
  void* block = Carve(size, alignment);
  if (!block) return ENOMEM;
  *out = block;
  return 0;
}
void* valloc(size_t size) { return Carve(size, 4096); }
void* pvalloc(size_t size) { return Carve((size + 4095) & ~size_t{4095}, 4096); }
size_t malloc_usable_size(void* block) { return SizeOf(block); }
}

int main(int argc, char** argv) {
  bool ok = WaitsForAttach(argc, argv) ? RunOwnAllocatorWorkloadOnCommand() : RunOwnAllocatorWorkload();
  pthread_mutex_lock(&g_lock);
  int chunks = g_chunks;
  pthread_mutex_unlock(&g_lock);
  std::printf("reentry allocator %s, %d heap chunks\n", ok ? "done" : "failed", chunks);
  return ok ? 0 : 1;
}
