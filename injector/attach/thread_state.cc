#include "attach/thread_state.h"

#include <elf.h>
#include <sys/ptrace.h>
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

bool ReadBlockedSignals(pid_t pid, pid_t tid, uint64_t* mask) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, 7, "SigBlk:") != 0) continue;
    *mask = strtoull(line.c_str() + 7, nullptr, 16);
    return true;
  }
  return false;
}

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

uint64_t RestorableFeatures(const ThreadState& state) {
  if (!state.xsave || state.xstate.size() < kXsaveHeaderOffset + 8) return 0;
  uint64_t xcr0 = 0, present = 0;
  memcpy(&xcr0, state.xstate.data() + kXcr0Offset, 8);
  memcpy(&present, state.xstate.data() + kXsaveHeaderOffset, 8);
  return xcr0 & (~kPermissionFeatures | present);
}

}  // namespace memframe::injector
