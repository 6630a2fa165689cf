#include "attach/thread_state.h"

#include <elf.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace memframe::injector {

namespace {

// The kernel's restart codes (include/linux/errno.h; not in the uapi).
constexpr long kRestartSys = 512, kRestartNoIntr = 513, kRestartNoHand = 514, kRestartBlock = 516;
// The software bytes of an XSAVE area read by ptrace start with XCR0.
constexpr size_t kXcr0Offset = 464;
// AMX tile state: usable only after arch_prctl(ARCH_REQ_XCOMP_PERM).
constexpr uint64_t kPermissionFeatures = (uint64_t{1} << 17) | (uint64_t{1} << 18);
constexpr size_t kXsaveHeaderOffset = 512;

// The waits that return EINTR, not a restart code, when a stop wakes them.
bool EndsWithEintrOnStop(long call) {
  switch (call) {
    case SYS_read: case SYS_readv: case SYS_recvfrom: case SYS_recvmsg: case SYS_recvmmsg: case SYS_accept:
    case SYS_accept4: case SYS_sendto: case SYS_sendmsg: case SYS_connect:  // sockets with a timeout
    case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_epoll_pwait2: case SYS_semop: case SYS_semtimedop:
    case SYS_rt_sigtimedwait: case SYS_io_getevents: case SYS_io_pgetevents:
      return true;
    default:
      return false;
  }
}

// The signal masks of `tid`'s /proc status lines named in `keys`, or'ed.
bool StatusMasks(pid_t pid, pid_t tid, std::initializer_list<const char*> keys, uint64_t* mask) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  bool found = false;
  *mask = 0;
  for (std::string line; std::getline(in, line);)
    for (const char* key : keys)
      if (line.compare(0, strlen(key), key) == 0 && line.size() > strlen(key) && line[strlen(key)] == ':') {
        *mask |= strtoull(line.c_str() + strlen(key) + 1, nullptr, 16);
        found = true;
      }
  return found;
}

// A signal pending for `tid` or its process that it does not block.
bool DeliverablePending(pid_t pid, pid_t tid) {
  uint64_t pending = 0, blocked = 0;
  if (!StatusMasks(pid, tid, {"SigPnd", "ShdPnd"}, &pending) || !StatusMasks(pid, tid, {"SigBlk"}, &blocked))
    return true;  // unknown: leave the EINTR
  return (pending & ~blocked) != 0;
}

}  // namespace

bool ReadThreadState(pid_t tid, ThreadState* state, std::string* error) {
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &state->regs) != 0) {
    *error = std::string("cannot read the registers: ") + strerror(errno);
    return false;
  }
  state->xstate.assign(64 * 1024, 0);
  iovec io{state->xstate.data(), state->xstate.size()};
  if (ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_X86_XSTATE), &io) == 0) {
    state->xstate.resize(io.iov_len);
    state->xsave = true;
    return true;
  }
  // No XSAVE: the legacy FPU/SSE area.
  state->xstate.assign(sizeof(user_fpregs_struct), 0);
  io = {state->xstate.data(), state->xstate.size()};
  if (ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRFPREG), &io) != 0) {
    *error = std::string("cannot read the floating-point registers: ") + strerror(errno);
    return false;
  }
  state->xstate.resize(io.iov_len);
  state->xsave = false;
  return true;
}

bool ReadBlockedSignals(pid_t pid, pid_t tid, uint64_t* mask) { return StatusMasks(pid, tid, {"SigBlk"}, mask); }

user_regs_struct ResumableRegisters(const user_regs_struct& regs, uint16_t code_before_ip) {
  user_regs_struct out = regs;
  out.orig_rax = static_cast<unsigned long long>(-1);
  const long call = static_cast<long>(regs.orig_rax), result = static_cast<long>(regs.rax);
  // syscall (0f 05) or int $0x80 (cd 80), read little-endian.
  const bool after_syscall = code_before_ip == 0x050f || code_before_ip == 0x80cd;
  if (call < 0 || !after_syscall) return out;
  switch (-result) {
    case kRestartSys: case kRestartNoIntr: case kRestartNoHand: case kRestartBlock:
      out.rax = regs.orig_rax;
      out.rip -= 2;
      break;
    default:
      break;
  }
  return out;
}

bool RewindWaitCutByStop(pid_t pid, pid_t tid) {
  user_regs_struct regs{};
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0) return false;
  const long call = static_cast<long>(regs.orig_rax);
  if (call < 0 || static_cast<long>(regs.rax) != -EINTR || !EndsWithEintrOnStop(call)) return false;
  errno = 0;
  const long before = ptrace(PTRACE_PEEKDATA, tid, reinterpret_cast<void*>(regs.rip - 2), nullptr);
  if (errno || (before & 0xffff) != 0x050f || DeliverablePending(pid, tid)) return false;
  // orig_rax stays: the stop's pickers still see the thread in its call.
  regs.rax = regs.orig_rax;
  regs.rip -= 2;
  return ptrace(PTRACE_SETREGS, tid, nullptr, &regs) == 0;
}

uint64_t RestorableFeatures(const ThreadState& state) {
  if (!state.xsave || state.xstate.size() < kXsaveHeaderOffset + 8) return 0;
  uint64_t xcr0 = 0, present = 0;
  memcpy(&xcr0, state.xstate.data() + kXcr0Offset, 8);
  memcpy(&present, state.xstate.data() + kXsaveHeaderOffset, 8);
  return xcr0 & (~kPermissionFeatures | present);
}

}  // namespace memframe::injector
