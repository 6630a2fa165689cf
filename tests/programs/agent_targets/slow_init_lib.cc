// A library whose initialiser is slow and then walks the loaded modules, as
// a heavy library's initialiser that unwinds an exception does: while it
// runs, its thread holds the loader's lock (dlopen has it), and the walk
// then wants the loader's write lock. It imports a lookup function memframe
// attach patches (weak, never called), so that the agent's pass over the
// new module has a present-family slot whose real function it must learn.
#include <link.h>
#include <unistd.h>

extern "C" __attribute__((weak)) void* eglGetProcAddress(const char* name);

extern "C" __attribute__((visibility("default"))) void* memframe_test_slow_lookup(const char* name) {
  return eglGetProcAddress ? eglGetProcAddress(name) : nullptr;
}

namespace {

int CountModule(dl_phdr_info*, size_t, void* data) {
  ++*static_cast<int*>(data);
  return 0;
}

__attribute__((constructor)) void SlowInit() {
  // Long enough for the agent's attach thread (it looks for new modules
  // every 20 ms) to start its pass over this one meanwhile.
  usleep(300 * 1000);
  int modules = 0;
  dl_iterate_phdr(CountModule, &modules);
}

}  // namespace
