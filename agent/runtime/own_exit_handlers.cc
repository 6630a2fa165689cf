// The agent's std::ios_base::Init destructors, kept out of the program's
// exit handlers.
//
// Each of the agent's translation units that includes the generated wire
// header (for its field numbers and enums) includes <iostream> through
// protobuf's headers, so it holds a std::ios_base::Init whose destructor it
// registers with __cxa_atexit. glibc keeps a process's first 32 exit
// handlers in a static block and mallocs a 1 KiB block for more: with the
// agent's ~20, a C program's few handlers overflowed into an allocation of
// the program's heap that was the agent's (agent_host's
// ACProgramShowsOnlyItsOwnAllocations). The agent links with
// --wrap=__cxa_atexit: those destructors are kept here, in a static table,
// and run when the agent's own destructors run (at exit, after the
// program's handlers). Every other handler is registered as before.
#include <atomic>

extern "C" {
int __real___cxa_atexit(void (*handler)(void*), void* argument, void* dso_handle);
// std::ios_base::Init::~Init(), libstdc++'s.
void _ZNSt8ios_base4InitD1Ev(void*);
}

namespace {

struct ExitHandler {
  void (*handler)(void*);
  void* argument;
};

constexpr int kKept = 64;
ExitHandler kept[kKept];
std::atomic<int> kept_count{0};

__attribute__((destructor)) void RunKeptExitHandlers() {
  int count = kept_count.exchange(kKept, std::memory_order_acq_rel);
  if (count > kKept) count = kKept;
  for (int i = count - 1; i >= 0; --i)
    if (kept[i].handler) kept[i].handler(kept[i].argument);  // null: reserved, not yet stored
}

}  // namespace

extern "C" __attribute__((visibility("hidden"))) int __wrap___cxa_atexit(void (*handler)(void*), void* argument,
                                                                         void* dso_handle) {
  if (handler == &_ZNSt8ios_base4InitD1Ev) {
    const int slot = kept_count.fetch_add(1, std::memory_order_acq_rel);
    if (slot < kKept) {
      kept[slot] = {handler, argument};
      return 0;
    }
  }
  return __real___cxa_atexit(handler, argument, dso_handle);
}
