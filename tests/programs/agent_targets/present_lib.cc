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

// A present whose prologue is short instructions (push, pause, mov: the
// jump's 5 bytes and one more): a thread that ran the first and stopped
// would resume in the middle of an entry jump written meanwhile, and the
// slow pause makes a thread often stop right there. Threads call it in a
// tight loop while memframe attaches and detaches; it counts its calls, so
// that a call lost or run twice shows.
extern "C" {
__attribute__((visibility("hidden"))) unsigned long memframe_test_spin_calls = 0;
}
__asm__(".text\n.globl glfwSwapBuffers\n.type glfwSwapBuffers, @function\n.p2align 4\n"
        "glfwSwapBuffers:\n  pushq %rbp\n  pause\n  movq %rsp, %rbp\n"
        "  lock incq memframe_test_spin_calls(%rip)\n  popq %rbp\n  ret\n"
        ".size glfwSwapBuffers, .-glfwSwapBuffers\n");
extern "C" void glfwSwapBuffers(void* window);

extern "C" __attribute__((visibility("default"))) unsigned long memframe_test_spin_count() {
  return __atomic_load_n(&memframe_test_spin_calls, __ATOMIC_SEQ_CST);
}

extern "C" __attribute__((visibility("default"))) void* glXGetProcAddressARB(const char* name) {
  if (strcmp(name, "glfwSwapBuffers") == 0) return reinterpret_cast<void*>(&glfwSwapBuffers);
  return strcmp(name, "glXSwapBuffers") == 0 ? reinterpret_cast<void*>(&glXSwapBuffers) : nullptr;
}
