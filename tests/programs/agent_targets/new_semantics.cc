// The standard's operator new behaviour must be exactly what it is without
// memframe: new_handler retries, bad_alloc, nothrow null, aligned forms,
// sized deletes, realloc/calloc corner cases. Prints what it observed; the
// test compares the output with a native run.
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

static int g_handler_calls = 0;
static void* g_reserve = nullptr;

static void ReleaseReserve() {
  ++g_handler_calls;
  if (g_reserve) {
    free(g_reserve);
    g_reserve = nullptr;
  } else {
    std::set_new_handler(nullptr);  // next failure throws
  }
}

struct alignas(64) Aligned {
  char bytes[64];
};

int main() {
  const size_t huge = static_cast<size_t>(1) << 62;
  g_reserve = malloc(1024);
  std::set_new_handler(ReleaseReserve);
  try {
    void* p = operator new(huge);
    std::printf("huge new succeeded?! %p\n", p);
  } catch (const std::bad_alloc&) {
    std::printf("bad_alloc after %d handler calls\n", g_handler_calls);
  }
  std::set_new_handler(nullptr);
  std::printf("nothrow huge: %s\n", operator new(huge, std::nothrow) == nullptr ? "null" : "non-null");
  std::printf("nothrow array huge: %s\n", operator new[](huge, std::nothrow) == nullptr ? "null" : "non-null");

  auto* a = new Aligned[3];
  std::printf("aligned array: %s\n", reinterpret_cast<uintptr_t>(a) % 64 == 0 ? "aligned" : "MISALIGNED");
  delete[] a;
  auto* one = new Aligned;
  std::printf("aligned one: %s\n", reinterpret_cast<uintptr_t>(one) % 64 == 0 ? "aligned" : "MISALIGNED");
  delete one;

  char* s = static_cast<char*>(malloc(16));
  strcpy(s, "memframe");
  s = static_cast<char*>(realloc(s, 4096));
  std::printf("realloc kept: %.8s usable>=4096: %d\n", s, malloc_usable_size(s) >= 4096);
  std::printf("realloc to 0: %s\n", realloc(s, 0) == nullptr ? "null" : "non-null");
  int* zeros = static_cast<int*>(calloc(1000, sizeof(int)));
  int sum = 0;
  for (int i = 0; i < 1000; ++i) sum += zeros[i];
  std::printf("calloc zeroed: %d\n", sum == 0);
  free(zeros);
  volatile size_t element = 16;  // volatile: the overflow is the point, not a compile-time warning
  std::printf("calloc overflow: %s\n", calloc(huge, element) == nullptr ? "null" : "non-null");
  void* aligned = nullptr;
  int rc = posix_memalign(&aligned, 4096, 100);
  std::printf("posix_memalign: %d %d\n", rc, reinterpret_cast<uintptr_t>(aligned) % 4096 == 0);
  free(aligned);
  std::printf("posix_memalign bad alignment: %d\n", posix_memalign(&aligned, 3, 100));
  void* al = aligned_alloc(256, 512);
  std::printf("aligned_alloc: %d\n", reinterpret_cast<uintptr_t>(al) % 256 == 0);
  free(al);
  free(nullptr);
  delete static_cast<int*>(nullptr);
  return 0;
}
