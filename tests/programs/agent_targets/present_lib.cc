// A stand-in for libGLX in the attach tests: a glXSwapBuffers compiled as
// a library's would be (it does a little work, so its prologue is a real
// one), the glXGetProcAddressARB that hands it out, and an eglSwapBuffers
// no entry patch can take. Loaded with
// RTLD_LOCAL, as SDL loads libGL, so nothing can find it by its name.
#include <cstring>

namespace {
volatile unsigned long g_swaps = 0;
}

extern "C" __attribute__((visibility("default"))) void glXSwapBuffers(void* display, unsigned long drawable) {
  g_swaps = g_swaps + 1 + (display ? drawable : 0);
}

// A present too short to patch at its entry (xor %eax,%eax; ret: it ends
// within the 5 bytes a jump needs): memframe attach must say it left it.
__asm__(".text\n.globl eglSwapBuffers\n.type eglSwapBuffers, @function\n.p2align 4\n"
        "eglSwapBuffers:\n  xorl %eax, %eax\n  ret\n.size eglSwapBuffers, .-eglSwapBuffers\n");

extern "C" __attribute__((visibility("default"))) void* glXGetProcAddressARB(const char* name) {
  return strcmp(name, "glXSwapBuffers") == 0 ? reinterpret_cast<void*>(&glXSwapBuffers) : nullptr;
}
