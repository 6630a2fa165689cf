// A call memframe starts in a thread of the game that puts the thread back
// by itself, whatever becomes of memframe: the thread calls a function of
// its libc whose return address is libc's signal restorer (__restore_rt:
// rt_sigreturn), below which lies a signal frame holding the thread's own
// state. When the function returns, the kernel restores every register,
// the XSAVE area and the signal mask from the frame, exactly as after a
// signal handler: memframe only watches (and may die meanwhile).
//
// The frame lies below the thread's red zone (the 128 bytes under rsp that
// leaf functions use), in stack the thread does not use, as a signal
// handler's would. Its altstack field is invalid on purpose: rt_sigreturn
// then leaves the thread's sigaltstack as it is (it ignores the error).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attach/target_process.h"
#include "attach/thread_state.h"

namespace memframe::injector {

struct SigreturnFrame {
  uint64_t at = 0;             // the return address's slot: rsp at the function's entry
  std::vector<uint8_t> bytes;  // what lies at `at`
  uint64_t sigmask_at = 0;     // where the mask is (it may be corrected before the return)
};

// The frame restoring `state` (rip and rax already resumable), for a call
// that returns into `restorer`, laid out below `below` (8 mod 16, as rsp
// at a function's entry).
SigreturnFrame BuildSigreturnFrame(const ThreadState& state, uint64_t restorer, uint64_t below);

// glibc's __restore_rt in `pid` (`mov $15, %rax; syscall`), found in the
// executable mapping of its libc; 0 if not found.
uint64_t FindSignalRestorer(pid_t pid, const std::vector<MappedRange>& maps);

}  // namespace memframe::injector
