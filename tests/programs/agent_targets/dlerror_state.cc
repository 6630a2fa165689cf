// A failed dlopen leaves glibc's error state on the heap until a later dl*
// call on the thread frees it (host_truth.h).
//   argv[1] == "dlsym":   the program's own dlsym of a name the agent
//                         intercepts ("gl..."; glob is libc's) frees it, and
//                         the agent handles that dlsym itself: the frees are
//                         the program's heap and must be recorded;
//   argv[1] == "present": the program's first glfwSwapBuffers (a stand-in
//                         library's) goes through the agent's hook, which
//                         must make no dl* call on the program's thread:
//                         dlerror() still reports the failed dlopen after
//                         it, as it does natively.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

extern "C" void glfwSwapBuffers(void* window);

namespace {

using namespace memframe::targets;

// Built with -fno-builtin: the pair stays.
void Sentinel(size_t size) { std::free(std::malloc(size)); }

bool FailDlopen() { return dlopen("libmemframe-no-such-library.so", RTLD_NOW) == nullptr; }

}  // namespace

int main(int argc, char** argv) {
  const bool present = argc > 1 && std::strcmp(argv[1], "present") == 0;
  // The first failure also fills the loader's own caches.
  if (!FailDlopen()) return 2;
  Sentinel(kDlerrorBeforeSentinel);
  if (!FailDlopen()) return 2;
  Sentinel(kDlerrorFailedSentinel);
  if (present) {
    glfwSwapBuffers(nullptr);
    const char* error = dlerror();
    Sentinel(kDlerrorAfterSentinel);
    std::printf("%s\n", error && std::strstr(error, "libmemframe-no-such-library") ? "dlerror kept across the present"
                                                                                : "dlerror lost by the present");
    return 0;
  }
  if (!dlsym(RTLD_DEFAULT, "glob")) return 3;
  Sentinel(kDlerrorAfterSentinel);
  std::printf("dlerror state freed\n");
  return 0;
}
