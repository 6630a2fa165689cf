// The entry patches of `memframe attach`: the prologue relocator on the
// entries of the presents as they are compiled in the libraries games use
// (bytes copied from Debian's builds), its refusals, and a patched function
// called through a pointer taken before the patch.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "attach/entry_trampolines.h"
#include "attach/x86_prologue.h"

namespace memframe::agent {
namespace {

struct Moved {
  bool ok;
  MovedPrologue moved;
  std::vector<uint8_t> out;
  uintptr_t entry, out_at;
};

// Relocates `code` (padded to a full instruction's worth) as if it ran
// where it is stored, to an output buffer next to it.
Moved Relocate(std::vector<uint8_t> code, size_t min_bytes = 5) {
  static uint8_t area[4096];
  memset(area, 0x90, sizeof(area));
  memcpy(area, code.data(), code.size());
  Moved m{};
  m.entry = reinterpret_cast<uintptr_t>(area);
  m.out_at = reinterpret_cast<uintptr_t>(area + 2048);
  m.ok = RelocatePrologue(area, min_bytes, area + 2048, 1024, &m.moved);
  m.out.assign(area + 2048, area + 2048 + m.moved.written);
  return m;
}

uint64_t JumpTarget(const Moved& m, size_t at) {
  EXPECT_EQ(m.out[at], 0xff);
  EXPECT_EQ(m.out[at + 1], 0x25);
  uint64_t target;
  memcpy(&target, m.out.data() + at + 6, sizeof(target));
  return target;
}

int32_t Rel32(const Moved& m, size_t at) {
  int32_t v;
  memcpy(&v, m.out.data() + at, sizeof(v));
  return v;
}

TEST(X86Prologue, PushesAndRegisterMovesAreCopiedAndJumpBack) {
  // libGLX's glXSwapBuffers: push %rbp; mov %rdi,%rbp; push %rbx; mov %rsi,%rbx.
  Moved m = Relocate({0x55, 0x48, 0x89, 0xfd, 0x53, 0x48, 0x89, 0xf3, 0x48, 0x83, 0xec, 0x08});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 5u);
  ASSERT_EQ(m.moved.written, 5u + kAbsoluteJumpBytes);
  EXPECT_EQ(std::vector<uint8_t>(m.out.begin(), m.out.begin() + 5),
            (std::vector<uint8_t>{0x55, 0x48, 0x89, 0xfd, 0x53}));
  EXPECT_EQ(JumpTarget(m, 5), m.entry + 5);
}

TEST(X86Prologue, EndbrAndFramePointer) {
  Moved m = Relocate({0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5, 0x41, 0x57});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 5u);
}

TEST(X86Prologue, ShortConditionalBranchBecomesNearToTheSameTarget) {
  // glfwSwapBuffers, vkQueuePresentKHR: test %rdi,%rdi; je +0x4e.
  Moved m = Relocate({0x48, 0x85, 0xff, 0x74, 0x4e, 0x48, 0x8d, 0x05, 0x74, 0xd2, 0x03, 0x00});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 5u);
  ASSERT_EQ(m.moved.written, 3u + 6u + kAbsoluteJumpBytes);
  EXPECT_EQ(m.out[3], 0x0f);
  EXPECT_EQ(m.out[4], 0x84);
  EXPECT_EQ(m.out_at + 9 + Rel32(m, 5), m.entry + 5 + 0x4e);
  EXPECT_EQ(JumpTarget(m, 9), m.entry + 5);
}

TEST(X86Prologue, RipRelativeLoadKeepsItsTarget) {
  // glvnd's libGL.so.1 stub: mov 0x3fb11(%rip),%rax; jmp *0x118(%rax).
  Moved m = Relocate({0x48, 0x8b, 0x05, 0x11, 0xfb, 0x03, 0x00, 0xff, 0xa0, 0x18, 0x01, 0x00, 0x00});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 7u);
  EXPECT_EQ(m.out_at + 7 + Rel32(m, 3), m.entry + 7 + 0x3fb11);
}

TEST(X86Prologue, RipRelativeWithAnImmediateAfterTheDisplacement) {
  // addl $1, 0x1000(%rip): the displacement is relative to the end of the immediate.
  Moved m = Relocate({0x83, 0x05, 0x00, 0x10, 0x00, 0x00, 0x01});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 7u);
  EXPECT_EQ(m.out_at + 7 + Rel32(m, 2), m.entry + 7 + 0x1000);
}

TEST(X86Prologue, IndirectJumpStubEndsTheMovedCode) {
  // SDL2's dynamic API stub: jmp *0x17c02a(%rip).
  Moved m = Relocate({0xff, 0x25, 0x2a, 0xc0, 0x17, 0x00, 0x66, 0x2e});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 6u);
  EXPECT_EQ(m.moved.written, 6u);  // no jump back after an unconditional jump
  EXPECT_EQ(m.out_at + 6 + Rel32(m, 2), m.entry + 6 + 0x17c02a);
}

TEST(X86Prologue, StackAdjustAndStackProtectorLoad) {
  // SDL 1.2's SDL_UpdateRect: sub $0x18,%rsp; mov %fs:0x28,%rax.
  Moved m = Relocate({0x48, 0x83, 0xec, 0x18, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 13u);
  // SDL_Flip: push %r13; push %r12; push %rbp; push %rbx.
  m = Relocate({0x41, 0x55, 0x41, 0x54, 0x55, 0x53, 0x48, 0x83, 0xec, 0x18});
  ASSERT_TRUE(m.ok) << m.moved.refusal;
  EXPECT_EQ(m.moved.taken, 5u);
}

TEST(X86Prologue, RefusesWhatItCannotMoveSafely) {
  struct Case {
    std::vector<uint8_t> code;
    const char* reason;
  } cases[] = {
      {{0xe8, 0, 0, 0, 0}, "call"},
      {{0x55, 0xff, 0xd0, 0x90, 0x90}, "call"},           // call *%rax
      {{0x31, 0xc0, 0xc3, 0x90, 0x90}, "ends"},           // xor %eax,%eax; ret
      {{0xeb, 0x10, 0x90, 0x90, 0x90}, "ends"},           // a 2-byte jump
      {{0x48, 0x85, 0xff, 0x74, 0xfb}, "branch back"},    // je to the entry
      {{0xcc, 0x90, 0x90, 0x90, 0x90}, "breakpoint"},
      {{0xf4, 0x90, 0x90, 0x90, 0x90}, "does not move"},  // hlt
      {{0x0f, 0x05, 0x90, 0x90, 0x90}, "does not move"},  // syscall
  };
  for (const Case& c : cases) {
    Moved m = Relocate(c.code);
    EXPECT_FALSE(m.ok);
    ASSERT_NE(m.moved.refusal, nullptr);
    EXPECT_NE(strstr(m.moved.refusal, c.reason), nullptr) << m.moved.refusal;
  }
}

std::atomic<void*> g_real_present{nullptr};
int g_hook_calls = 0;
int g_present_calls = 0;

extern "C" __attribute__((noinline, aligned(16))) int memframe_test_present(int a, int b) {
  __atomic_add_fetch(&g_present_calls, 1, __ATOMIC_RELAXED);
  return a * 3 + b;
}

int TestHook(int a, int b) {
  ++g_hook_calls;
  return reinterpret_cast<int (*)(int, int)>(g_real_present.load())(a, b) + 1000;
}

TEST(EntryTrampolines, PointerTakenBeforeThePatchReachesTheHook) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer instruments the patched function's prologue with a call
  // into its runtime, which the relocator does not take; the main build runs
  // this test on the code a game really has.
  GTEST_SKIP() << "prologue instrumented by ThreadSanitizer";
#endif
  int (*volatile fetched)(int, int) = &memframe_test_present;
  ASSERT_EQ(fetched(2, 1), 7);
  uint8_t before[16];
  memcpy(before, reinterpret_cast<void*>(fetched), sizeof(before));
  ASSERT_TRUE(PrepareEntryTrampoline("memframe_test_present", reinterpret_cast<uintptr_t>(fetched),
                                     reinterpret_cast<void*>(&TestHook), &g_real_present));
  EXPECT_TRUE(IsEntryTrampolineReal(&g_real_present));
  // Prepared only: the entry is memframe's to write, and until then a call
  // through the pointer runs the function as before.
  EXPECT_EQ(memcmp(before, reinterpret_cast<void*>(fetched), sizeof(before)), 0);
  EXPECT_EQ(fetched(2, 1), 7);
  EXPECT_EQ(g_hook_calls, 0);
  EXPECT_EQ(ArmPreparedEntriesInPlaceForTest(), 1u);
  EXPECT_EQ(fetched(2, 1), 1007);  // the hook, which ran the original code
  EXPECT_EQ(g_hook_calls, 1);
  EXPECT_EQ(g_present_calls, 3);
  EXPECT_GE(DisarmEntryTrampolines(), 1u);
  EXPECT_EQ(memcmp(before, reinterpret_cast<void*>(fetched), sizeof(before)), 0);
  EXPECT_EQ(fetched(4, 1), 13);
  EXPECT_EQ(g_hook_calls, 1);
  // Attached again: the same moved prologue serves.
  ASSERT_TRUE(PrepareEntryTrampoline("memframe_test_present", reinterpret_cast<uintptr_t>(fetched),
                                     reinterpret_cast<void*>(&TestHook), &g_real_present));
  EXPECT_EQ(ArmPreparedEntriesInPlaceForTest(), 1u);
  EXPECT_EQ(fetched(0, 5), 1005);
  EXPECT_GE(DisarmEntryTrampolines(), 1u);
  EXPECT_EQ(fetched(0, 5), 5);
}

void NeverCalled() { std::abort(); }

// Every present entry of the libraries installed here can be patched and
// restored byte for byte (each is skipped if its library is not installed).
TEST(EntryTrampolines, InstalledPresentsCanBePatchedAndRestored) {
  struct Present {
    const char* library;
    const char* name;
  } presents[] = {
      {"libGLX.so.0", "glXSwapBuffers"},       {"libGL.so.1", "glXSwapBuffers"},
      {"libEGL.so.1", "eglSwapBuffers"},       {"libglfw.so.3", "glfwSwapBuffers"},
      {"libvulkan.so.1", "vkQueuePresentKHR"}, {"libSDL-1.2.so.0", "SDL_GL_SwapBuffers"},
      {"libSDL-1.2.so.0", "SDL_Flip"},         {"libSDL-1.2.so.0", "SDL_UpdateRect"},
      {"libSDL-1.2.so.0", "SDL_UpdateRects"},
  };
  static std::atomic<void*> reals[sizeof(presents) / sizeof(presents[0])];
  int tried = 0;
  for (size_t i = 0; i < sizeof(presents) / sizeof(presents[0]); ++i) {
    void* library = dlopen(presents[i].library, RTLD_NOW | RTLD_LOCAL);
    if (!library) continue;
    void* symbol = dlsym(library, presents[i].name);
    ASSERT_NE(symbol, nullptr) << presents[i].name;
    uintptr_t entry = FollowForwarders(reinterpret_cast<uintptr_t>(symbol));
    uint8_t before[16];
    memcpy(before, reinterpret_cast<void*>(entry), sizeof(before));
    EXPECT_TRUE(PrepareEntryTrampoline(presents[i].name, entry, reinterpret_cast<void*>(&NeverCalled), &reals[i]))
        << presents[i].library << " " << presents[i].name;
    EXPECT_GE(ArmPreparedEntriesInPlaceForTest(), 1u);
    EXPECT_NE(memcmp(before, reinterpret_cast<void*>(entry), sizeof(before)), 0);
    EXPECT_GE(DisarmEntryTrampolines(), 1u);
    EXPECT_EQ(memcmp(before, reinterpret_cast<void*>(entry), sizeof(before)), 0) << presents[i].name;
    ++tried;
  }
  if (tried == 0) GTEST_SKIP() << "no present library installed";
}

TEST(EntryTrampolines, ForwarderStubsLeadToTheFunction) {
  // glvnd: libGL.so.1's glXSwapBuffers forwards to libGLX's.
  void* gl = dlopen("libGL.so.1", RTLD_NOW | RTLD_LOCAL);
  void* glx = dlopen("libGLX.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!gl || !glx) GTEST_SKIP() << "glvnd not installed";
  EXPECT_EQ(FollowForwarders(reinterpret_cast<uintptr_t>(dlsym(gl, "glXSwapBuffers"))),
            reinterpret_cast<uintptr_t>(dlsym(glx, "glXSwapBuffers")));
}

}  // namespace
}  // namespace memframe::agent
