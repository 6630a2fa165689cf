// A stopped thread's whole user state (general registers, the XSAVE area,
// its blocked signals) and the state it resumes in when memframe gives it
// back by itself rather than through the kernel's own exit from a stop.
//
// A thread stopped inside a system call has rax = -ERESTART* (or -EINTR,
// for the waits that return it on a stop) and orig_rax = the call: the
// kernel restarts the call when it leaves the stop. Code memframe runs in
// the thread leaves that path, so the state it restores must restart the
// call itself: rip back onto the `syscall` instruction, rax = the call.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memframe::injector {

struct ThreadState {
  user_regs_struct regs{};
  std::vector<uint8_t> xstate;  // NT_X86_XSTATE (XSAVE layout), or the legacy FXSAVE area
  bool xsave = false;           // xstate is an XSAVE area (else FXSAVE only)
  uint64_t blocked = 0;         // the blocked signal mask (/proc/TID/status SigBlk)
};

// Reads the state of the ptrace-stopped `tid`.
bool ReadThreadState(pid_t tid, ThreadState* state, std::string* error);

// The blocked signal mask of `tid` now.
bool ReadBlockedSignals(pid_t pid, pid_t tid, uint64_t* mask);

// `regs` as the thread must resume when its stop is left by code of
// memframe's rather than by the kernel: a system call the stop
// interrupted is re-entered with its own arguments (a timed wait starts its
// whole timeout again: it may end later than it would have, never
// earlier), and orig_rax is -1 (no restart on top of that).
// `code_before_ip`: the 2 bytes before rip (to check they are a syscall).
user_regs_struct ResumableRegisters(const user_regs_struct& regs, uint16_t code_before_ip);

// For `tid` of `pid` in the stop of a PTRACE_INTERRUPT: a wait the kernel
// ends with EINTR on a stop (epoll_wait, sigtimedwait, semtimedop, a
// socket's timed read...; signal(7), "Interruption of system calls by stop
// signals") is put back onto its `syscall` instruction, to be re-entered
// on resume as the kernel re-enters the others: the program never sees
// the stop. Left alone if a signal may be delivered to the thread (then
// the EINTR is the signal's, as natively). True if it rewound the call.
bool RewindWaitCutByStop(pid_t pid, pid_t tid);

// The XSAVE features XRSTOR may restore from `state` (the XCR0 value the
// kernel puts in the area's software bytes, less the features that need a
// permission the process may not have asked for).
uint64_t RestorableFeatures(const ThreadState& state);

}  // namespace memframe::injector
