#include "attach/sigreturn_frame.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace memframe::injector {

namespace {

// The kernel's x86-64 signal frame (arch/x86/include/asm/sigframe.h,
// uapi/asm/sigcontext.h): glibc's ucontext_t is another layout.
struct KernelSigcontext {
  uint64_t r8, r9, r10, r11, r12, r13, r14, r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
  uint16_t cs, gs, fs, ss;
  uint64_t err, trapno, oldmask, cr2, fpstate, reserved[8];
};
static_assert(sizeof(KernelSigcontext) == 256);

struct KernelUcontext {
  uint64_t flags, link;
  uint64_t stack_sp;
  int32_t stack_flags, pad;
  uint64_t stack_size;
  KernelSigcontext mcontext;
  uint64_t sigmask;
};
static_assert(sizeof(KernelUcontext) == 304);

struct RtSigframe {
  uint64_t pretcode;
  KernelUcontext uc;
  uint8_t info[128];
};
static_assert(sizeof(RtSigframe) == 440);

constexpr uint64_t kUcFpXstate = 1, kUcSigcontextSs = 2, kUcStrictRestoreSs = 4;
// Neither 0, SS_ONSTACK nor SS_DISABLE: sigaltstack refuses it, so the
// thread's own alternate stack stays.
constexpr int32_t kInvalidAltstackFlags = 3;
constexpr uint32_t kFpXstateMagic1 = 0x46505853, kFpXstateMagic2 = 0x46505845;
constexpr size_t kSwBytesOffset = 464;

// The software bytes the kernel checks in a signal frame's XSAVE area
// (struct _fpx_sw_bytes): without them it restores the FXSAVE part only.
void PutSoftwareBytes(std::vector<uint8_t>* area, uint64_t xcr0) {
  const uint32_t size = static_cast<uint32_t>(area->size());
  struct {
    uint32_t magic1, extended_size;
    uint64_t xfeatures;
    uint32_t xstate_size, padding[7];
  } sw{kFpXstateMagic1, size + 4, xcr0, size, {}};
  static_assert(sizeof(sw) == 48);
  memcpy(area->data() + kSwBytesOffset, &sw, sizeof sw);
  area->resize(size + 4);
  memcpy(area->data() + size, &kFpXstateMagic2, 4);
}

}  // namespace

SigreturnFrame BuildSigreturnFrame(const ThreadState& state, uint64_t restorer, uint64_t below) {
  std::vector<uint8_t> fp = state.xstate;
  if (state.xsave) {
    uint64_t xcr0 = 0;
    memcpy(&xcr0, fp.data() + kSwBytesOffset, 8);
    PutSoftwareBytes(&fp, xcr0);
  }
  const uint64_t fp_at = (below - fp.size()) & ~uint64_t{63};  // XRSTOR wants 64-byte alignment
  uint64_t at = ((fp_at - sizeof(RtSigframe)) & ~uint64_t{15}) - 8;
  RtSigframe frame{};
  frame.pretcode = restorer;
  frame.uc.flags = (state.xsave ? kUcFpXstate : 0) | kUcSigcontextSs | kUcStrictRestoreSs;
  frame.uc.stack_flags = kInvalidAltstackFlags;
  const user_regs_struct& r = state.regs;
  KernelSigcontext& c = frame.uc.mcontext;
  c.r8 = r.r8, c.r9 = r.r9, c.r10 = r.r10, c.r11 = r.r11, c.r12 = r.r12, c.r13 = r.r13, c.r14 = r.r14;
  c.r15 = r.r15, c.rdi = r.rdi, c.rsi = r.rsi, c.rbp = r.rbp, c.rbx = r.rbx, c.rdx = r.rdx, c.rax = r.rax;
  c.rcx = r.rcx, c.rsp = r.rsp, c.rip = r.rip, c.eflags = r.eflags;
  c.cs = static_cast<uint16_t>(r.cs), c.ss = static_cast<uint16_t>(r.ss);
  c.fpstate = fp_at;
  frame.uc.sigmask = state.blocked;
  SigreturnFrame out;
  out.at = at;
  out.sigmask_at = at + offsetof(RtSigframe, uc) + offsetof(KernelUcontext, sigmask);
  out.bytes.assign(below - at, 0);
  memcpy(out.bytes.data(), &frame, sizeof frame);
  memcpy(out.bytes.data() + (fp_at - at), fp.data(), fp.size());
  return out;
}

uint64_t FindSignalRestorer(pid_t pid, const std::vector<MappedRange>& maps) {
  static const uint8_t kRestorer[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  for (const MappedRange& r : maps) {
    if (!r.executable || r.path.find("/libc.so") == std::string::npos) continue;
    int fd = OpenMappedFile(pid, r);
    if (fd < 0) return 0;
    std::vector<uint8_t> text(r.end - r.start);
    ssize_t n = pread(fd, text.data(), text.size(), static_cast<off_t>(r.offset));
    close(fd);
    if (n <= 0) return 0;
    text.resize(static_cast<size_t>(n));
    auto found = std::search(text.begin(), text.end(), std::begin(kRestorer), std::end(kRestorer));
    if (found != text.end()) return r.start + static_cast<uint64_t>(found - text.begin());
  }
  return 0;
}

}  // namespace memframe::injector
