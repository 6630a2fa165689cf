// libdlsym_next_first.so: defines which() and asks for the *next* which()
// with dlsym(RTLD_NEXT), as interposing libraries do.
#include <dlfcn.h>

extern "C" int which() { return 1; }

extern "C" int call_next_which() {
  auto next = reinterpret_cast<int (*)()>(dlsym(RTLD_NEXT, "which"));
  return next ? next() : -1;
}
