// An ordinary C++ program: uses operator new and malloc from the C++ and C
// libraries and defines neither. Only inspected (the own-allocator check);
// the tests' own binaries are no such program in a clang ASan build, which
// links the sanitizer's malloc into each executable.
#include <cstdlib>

int main() {
  int* value = new int(1);
  void* block = std::malloc(16);
  int status = *value - 1;
  std::free(block);
  delete value;
  return status;
}
