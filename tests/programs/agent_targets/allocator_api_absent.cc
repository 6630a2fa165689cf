// A program that uses jemalloc or mimalloc only when the library is there,
// found by a weak reference or by dlsym(RTLD_DEFAULT, ...), and links
// neither: each must be absent under memframe exactly as without it (an
// agent that defined these names would make the program take the allocator
// path and fail its allocations).
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>

extern "C" {
void* mallocx(size_t size, int flags) __attribute__((weak));
void* mi_malloc(size_t size) __attribute__((weak));
void mi_free(void* block) __attribute__((weak));
}

namespace {

void Report(const char* name, bool weak_present) {
  bool found = dlsym(RTLD_DEFAULT, name) != nullptr;
  std::printf("%s: weak %s, dlsym %s\n", name, weak_present ? "present" : "absent", found ? "present" : "absent");
}

}  // namespace

int main() {
  Report("mallocx", &mallocx != nullptr);
  Report("mi_malloc", &mi_malloc != nullptr);
  Report("mi_free", &mi_free != nullptr);
  return 0;
}
