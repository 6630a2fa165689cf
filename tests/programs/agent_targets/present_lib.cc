// A stand-in for libGLX in the attach tests: a glXSwapBuffers compiled as
// a library's would be (it does a little work, so its prologue is a real
// one), and the glXGetProcAddressARB that hands it out. Loaded with
// RTLD_LOCAL, as SDL loads libGL, so nothing can find it by its name.
#include <cstring>

namespace {
volatile unsigned long g_swaps = 0;
}

extern "C" __attribute__((visibility("default"))) void glXSwapBuffers(void* display, unsigned long drawable) {
  g_swaps = g_swaps + 1 + (display ? drawable : 0);
}

extern "C" __attribute__((visibility("default"))) void* glXGetProcAddressARB(const char* name) {
  return strcmp(name, "glXSwapBuffers") == 0 ? reinterpret_cast<void*>(&glXSwapBuffers) : nullptr;
}
