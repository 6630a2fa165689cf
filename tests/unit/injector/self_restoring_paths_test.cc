// The pieces of the injection's self-restoring paths that need no process:
// where a stopped thread resumes, the signal frame's layout, the stub's.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

#include "attach/injection_stub.h"
#include "attach/sigreturn_frame.h"
#include "attach/thread_state.h"

namespace memframe::injector {
namespace {

constexpr uint16_t kSyscall = 0x050f;  // 0f 05, read little-endian

user_regs_struct InCall(long call, long result) {
  user_regs_struct r{};
  r.orig_rax = static_cast<unsigned long long>(call);
  r.rax = static_cast<unsigned long long>(result);
  r.rip = 0x1002;
  return r;
}

TEST(ResumableRegisters, ACallTheKernelWouldRestartIsReentered) {
  for (long code : {512L, 513L, 514L, 516L}) {  // -ERESTARTSYS, NOINTR, NOHAND, RESTART_RESTARTBLOCK
    user_regs_struct r = ResumableRegisters(InCall(232, -code), kSyscall);
    EXPECT_EQ(r.rip, 0x1000u) << code;
    EXPECT_EQ(r.rax, 232u) << code;
    EXPECT_EQ(static_cast<long>(r.orig_rax), -1) << code;
  }
}

TEST(ResumableRegisters, AFinishedCallOrCodeThatIsNoCallResumesWhereItIs) {
  user_regs_struct done = ResumableRegisters(InCall(0, 5), kSyscall);
  EXPECT_EQ(done.rip, 0x1002u);
  EXPECT_EQ(done.rax, 5u);
  user_regs_struct interrupted = ResumableRegisters(InCall(232, -EINTR), kSyscall);  // the EINTR stands
  EXPECT_EQ(interrupted.rip, 0x1002u);
  user_regs_struct not_after_syscall = ResumableRegisters(InCall(232, -512), 0x9090);
  EXPECT_EQ(not_after_syscall.rip, 0x1002u);
  user_regs_struct running = ResumableRegisters(InCall(-1, -512), kSyscall);
  EXPECT_EQ(running.rip, 0x1002u);
}

ThreadState XsaveState() {
  ThreadState s;
  s.xsave = true;
  s.xstate.assign(832, 0);
  const uint64_t xcr0 = 7, present = 3;
  memcpy(s.xstate.data() + 464, &xcr0, 8);
  memcpy(s.xstate.data() + 512, &present, 8);
  s.regs.rip = 0x401000;
  s.regs.rsp = 0x7ffff000;
  s.blocked = 1u << 9;
  return s;
}

TEST(SigreturnFrame, ReturnsIntoTheRestorerWithTheStateAndAnAlignedXsaveArea) {
  ThreadState s = XsaveState();
  const uint64_t below = 0x7ffe0000;
  SigreturnFrame f = BuildSigreturnFrame(s, 0xdead0, below);
  EXPECT_EQ(f.at % 16, 8u);  // rsp at a function's entry
  EXPECT_LE(f.at + f.bytes.size(), below);
  uint64_t word = 0;
  memcpy(&word, f.bytes.data(), 8);
  EXPECT_EQ(word, 0xdead0u);  // the return address: the restorer
  memcpy(&word, f.bytes.data() + (f.sigmask_at - f.at), 8);
  EXPECT_EQ(word, s.blocked);
  // sigcontext: rip at 8 + 40 + 128, rsp at 8 + 40 + 120, fpstate at 8 + 40 + 184.
  memcpy(&word, f.bytes.data() + 8 + 40 + 128, 8);
  EXPECT_EQ(word, s.regs.rip);
  memcpy(&word, f.bytes.data() + 8 + 40 + 120, 8);
  EXPECT_EQ(word, s.regs.rsp);
  uint64_t fpstate = 0;
  memcpy(&fpstate, f.bytes.data() + 8 + 40 + 184, 8);
  EXPECT_EQ(fpstate % 64, 0u);
  uint32_t magic1 = 0, magic2 = 0;
  memcpy(&magic1, f.bytes.data() + (fpstate - f.at) + 464, 4);
  memcpy(&magic2, f.bytes.data() + (fpstate - f.at) + 832, 4);
  EXPECT_EQ(magic1, 0x46505853u);
  EXPECT_EQ(magic2, 0x46505845u);
}

TEST(InjectionStub, ItsCodeEndsBeforeItsResultsAndItsStringsAreInPlace) {
  ThreadState s = XsaveState();
  StubCalls calls{0x1000, 0x2000, 0x3000, "/opt/agent.so", "/tmp/attach.conf"};
  const uint64_t base = 0x7f0000000000;
  InjectionStub stub = BuildInjectionStub(base, calls, s, s.regs);
  EXPECT_EQ(stub.bytes.size(), InjectionStubSize(calls, s));
  EXPECT_EQ(stub.bytes.size() % 4096, 0u);
  EXPECT_LT(stub.marker_end, StubResults::kHandle);
  EXPECT_EQ(stub.bytes[stub.marker_end - 2], 0x0f);  // the marker's syscall
  EXPECT_EQ(stub.bytes[stub.marker_end - 1], 0x05);
  std::string all(stub.bytes.begin(), stub.bytes.end());
  EXPECT_NE(all.find(std::string("/opt/agent.so") + '\0'), std::string::npos);
  EXPECT_NE(all.find(std::string("memframe_attach") + '\0'), std::string::npos);
  // Nothing of the code lies past the results' offset.
  for (uint64_t i = StubResults::kHandle; i < 0x340; ++i) EXPECT_EQ(stub.bytes[i], 0) << i;
  // The XRSTOR takes XCR0 less nothing here (no tile state).
  EXPECT_EQ(RestorableFeatures(s), 7u);
}

}  // namespace
}  // namespace memframe::injector
