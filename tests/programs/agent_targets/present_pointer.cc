// A game that fetched its present before memframe attached: it loads its
// GL library with dlopen(RTLD_LOCAL) and keeps glXSwapBuffers from
// glXGetProcAddressARB (as SDL does), so no import slot of its own leads to
// the present. Driven from stdin:
//
//   frames N   N frames, frame i making one malloc(1000 + i) freed in the
//              same frame, each ended by the fetched glXSwapBuffers; then
//              "done"
//   spin-on T  T threads call a glfwSwapBuffers fetched the same way in a
//              tight loop (its prologue is three short instructions); then
//              "spinning"
//   spin-off 0 stops them; "calls-match" if the library counted as many
//              calls as the threads made, else "calls-lost MADE COUNTED"
//   load-slow 0  dlopens a library whose initialiser holds the loader's
//              lock for a while and then walks the modules (slow_init_lib.cc);
//              then "loaded"
//   exit N     exits with status N ("bye" first)
// "ready" is printed once the present is fetched.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using SwapFn = void (*)(void*, unsigned long);

__attribute__((noinline)) void Frame(SwapFn swap, long i) {
  void* block = malloc(1000 + static_cast<size_t>(i));
  __asm__ volatile("" : : "r"(block) : "memory");
  free(block);
  swap(nullptr, 0);
}

using WindowSwapFn = void (*)(void*);

struct Spinners {
  std::atomic<bool> run{false};
  std::vector<std::thread> threads;
  std::atomic<unsigned long> made{0};

  void Start(WindowSwapFn swap, long count) {
    run = true;
    for (long t = 0; t < count; ++t)
      threads.emplace_back([this, swap] {
        unsigned long calls = 0;
        while (run.load(std::memory_order_relaxed)) {
          swap(nullptr);
          ++calls;
        }
        made += calls;
      });
  }
  unsigned long Stop() {
    run = false;
    for (std::thread& t : threads) t.join();
    threads.clear();
    return made.exchange(0);
  }
};

}  // namespace

int main() {
  void* gl = dlopen(PRESENT_LIB_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!gl) {
    std::fprintf(stderr, "present_pointer: %s\n", dlerror());
    return 1;
  }
  auto get_proc = reinterpret_cast<void* (*)(const char*)>(dlsym(gl, "glXGetProcAddressARB"));
  auto swap = reinterpret_cast<SwapFn>(get_proc ? get_proc("glXSwapBuffers") : nullptr);
  auto spin_swap = reinterpret_cast<WindowSwapFn>(get_proc ? get_proc("glfwSwapBuffers") : nullptr);
  auto spin_count = reinterpret_cast<unsigned long (*)()>(dlsym(gl, "memframe_test_spin_count"));
  if (!swap || !spin_swap || !spin_count) return 1;
  Spinners spinners;
  unsigned long spin_base = 0;
  std::printf("ready\n");
  std::fflush(stdout);
  std::string word;
  long n = 0;
  while (std::cin >> word >> n) {
    if (word == "frames") {
      for (long i = 0; i < n; ++i) Frame(swap, i);
      std::printf("done\n");
    } else if (word == "spin-on") {
      spin_base = spin_count();
      spinners.Start(spin_swap, n);
      std::printf("spinning\n");
    } else if (word == "spin-off") {
      unsigned long made = spinners.Stop(), counted = spin_count() - spin_base;
      if (made == counted) std::printf("calls-match\n");
      else std::printf("calls-lost %lu %lu\n", made, counted);
    } else if (word == "load-slow") {
      std::printf(dlopen(SLOW_INIT_LIB_PATH, RTLD_LAZY | RTLD_LOCAL) ? "loaded\n" : "failed\n");
    } else if (word == "exit") {
      std::printf("bye\n");
      std::fflush(stdout);
      return static_cast<int>(n);
    }
    std::fflush(stdout);
  }
  return 0;
}
