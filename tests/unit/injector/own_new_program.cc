// Defines operator new in the executable, as some engines do to route it to
// their own heap; this one passes it on to malloc. Only inspected.
#include <cstdlib>
#include <new>

void* operator new(std::size_t size) {
  if (void* block = std::malloc(size)) return block;
  throw std::bad_alloc();
}

void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }

int main() {
  delete new int(1);
  return 0;
}
