// RTLD_NEXT is resolved relative to the library that calls dlsym. With the
// agent interposing dlsym, the first library must still find the second
// library's which(), not its own or the agent's idea of "next".
#include <cstdio>

extern "C" int call_next_which();

int main() {
  int next = call_next_which();
  std::printf("next which() = %d\n", next);
  return next == 2 ? 0 : 1;
}
