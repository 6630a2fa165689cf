// The code memframe has a thread of the game run to load the agent:
// dlopen(agent), dlsym(handle, "memframe_attach"), memframe_attach(config)
// (dlerror() when dlopen fails), each result stored in the stub's own
// memory, then a marker system call (getpid) that lets a watching memframe
// know the calls are over, and then the thread's own state put back by the
// stub itself: the XSAVE area (XRSTOR), every general register and the
// flags, and a jump to where the thread was. The stub needs nothing from
// memframe once started, so a memframe killed meanwhile leaves the game
// running on as if nothing had happened (but for the agent, loaded).
//
// The stub lives in a private mapping of the game's (mapped for it with a
// self-restoring call, sigreturn_frame.h); the thread runs the calls on its
// own stack, below its red zone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attach/thread_state.h"

namespace memframe::injector {

struct StubCalls {
  uint64_t dlopen = 0, dlsym = 0, dlerror = 0;  // in the game
  std::string agent, config;                    // the agent's path and its settings' file
};

// Where the stub puts its results, as offsets into its mapping.
struct StubResults {
  static constexpr uint64_t kHandle = 0x300, kEntry = 0x308, kStatus = 0x310, kDlerror = 0x318, kState = 0x320;
  static constexpr uint64_t kDone = 2;  // kState's value once the calls are over
};

struct InjectionStub {
  std::vector<uint8_t> bytes;  // the whole mapping's contents
  uint64_t marker_end = 0;     // offset just after the marker's syscall instruction
};

// The size of the mapping for `calls` and `state`.
uint64_t InjectionStubSize(const StubCalls& calls, const ThreadState& state);

// The stub for a mapping at `base` that puts back `resume` (resumable
// registers, ResumableRegisters) and `state`'s XSAVE area.
InjectionStub BuildInjectionStub(uint64_t base, const StubCalls& calls, const ThreadState& state,
                                 const user_regs_struct& resume);

}  // namespace memframe::injector
