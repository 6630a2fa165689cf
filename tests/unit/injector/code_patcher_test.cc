// The code patcher of `memframe attach` (injector/attach/code_patcher.h) on
// a child process parked in known code: it writes a patch only while no
// thread would resume inside the bytes it changes, refuses a patch a thread
// stays inside, and never writes over code that is not what it expects.
#include "attach/code_patcher.h"
#include "attach/entry_patch_requests.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

// A loop that never leaves the first 5 bytes of its function: nop, then
// pause and a jump back to it (at +1 and +3).
extern "C" void memframe_test_parked();
// A loop of its own, away from the code patched.
extern "C" void memframe_test_elsewhere();
// Code no thread runs: the bytes the patches change.
extern "C" void memframe_test_idle();
__asm__(".text\n.p2align 4\n.globl memframe_test_parked\nmemframe_test_parked:\n  nop\n1:\n  pause\n  jmp 1b\n"
        ".p2align 4\n.globl memframe_test_elsewhere\nmemframe_test_elsewhere:\n1:\n  pause\n  jmp 1b\n"
        ".p2align 4\n.globl memframe_test_idle\nmemframe_test_idle:\n  nop\n  nop\n  nop\n  nop\n  nop\n  nop\n"
        "  nop\n  nop\n  ret\n");

namespace memframe::injector {
namespace {

uint64_t WordAt(void (*function)()) {
  uint64_t word;
  memcpy(&word, reinterpret_cast<const void*>(function), sizeof word);
  return word;
}

// A patch of the function's first 5 bytes into `jmp +0` (what an entry
// patch looks like), as the agent would publish it.
CodePatch EntryPatchOf(void (*function)()) {
  CodePatch p;
  p.name = "test_function";
  p.word_at = reinterpret_cast<uint64_t>(function);
  p.from = WordAt(function);
  uint8_t bytes[8];
  memcpy(bytes, &p.from, 8);
  const uint8_t jump[5] = {0xe9, 0, 0, 0, 0};
  memcpy(bytes, jump, sizeof jump);
  memcpy(&p.to, bytes, 8);
  p.first = p.word_at;
  p.length = 5;
  return p;
}

// A child (fork: the same code at the same addresses) running `loop`.
class Child {
 public:
  explicit Child(void (*loop)()) {
    pid_ = fork();
    if (pid_ == 0) {
      loop();
      _exit(0);
    }
  }
  ~Child() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  // The child's 8 bytes at `at`, read through /proc (its parent may).
  uint64_t Read(uint64_t at) const {
    uint64_t word = 0;
    int fd = open(("/proc/" + std::to_string(pid_) + "/mem").c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(pread(fd, &word, sizeof word, static_cast<off_t>(at)), 8);
    close(fd);
    return word;
  }
  // The child's instruction pointer, read in a ptrace stop; 0 where this
  // machine lets no process be traced.
  uint64_t InstructionPointer() const {
    if (ptrace(PTRACE_SEIZE, pid_, nullptr, nullptr) != 0) return 0;
    ptrace(PTRACE_INTERRUPT, pid_, nullptr, nullptr);
    waitpid(pid_, nullptr, __WALL);
    user_regs_struct regs{};
    ptrace(PTRACE_GETREGS, pid_, nullptr, &regs);
    ptrace(PTRACE_DETACH, pid_, nullptr, nullptr);
    return regs.rip;
  }
  bool Traceable() const { return InstructionPointer() != 0; }
  // Polls (deadline 10 s) until the child runs in [from, to): right after
  // the fork it is still in libc, on its way to its loop.
  bool WaitUntilIn(uint64_t from, uint64_t to) const {
    for (int i = 0; i < 10000; ++i) {
      uint64_t ip = InstructionPointer();
      if (ip >= from && ip < to) return true;
      usleep(1000);
    }
    return false;
  }

 private:
  pid_t pid_;
};

TEST(CodePatcher, ResumesInsideIsStrictlyAfterTheFirstByte) {
  CodePatch p;
  p.first = 0x1000;
  p.length = 5;
  EXPECT_FALSE(ResumesInside(p, 0x0fff));
  EXPECT_FALSE(ResumesInside(p, 0x1000));  // runs the new instruction whole
  for (uint64_t ip = 0x1001; ip < 0x1005; ++ip) EXPECT_TRUE(ResumesInside(p, ip)) << ip;
  EXPECT_FALSE(ResumesInside(p, 0x1005));
}

TEST(CodePatcher, RefusesAPatchAThreadStaysInside) {
  Child child(&memframe_test_parked);
  if (!child.Traceable()) GTEST_SKIP() << "ptrace is not allowed here";
  CodePatch patch = EntryPatchOf(&memframe_test_parked);
  ASSERT_TRUE(child.WaitUntilIn(patch.first + 1, patch.first + patch.length));
  CodePatchResult result = ApplyCodePatches(child.pid(), {patch}, false);
  EXPECT_TRUE(result.written.empty());
  ASSERT_EQ(result.refused.size(), 1u);
  EXPECT_NE(result.refused[0].find("test_function: not patched at its entry: thread " + std::to_string(child.pid()) +
                                   " stayed inside its first 5 bytes in 5 tries"),
            std::string::npos)
      << result.refused[0];
  EXPECT_EQ(result.tries, kCodePatchTries);
  EXPECT_GT(result.steps, 0);
  EXPECT_EQ(child.Read(patch.word_at), patch.from);  // untouched
  EXPECT_EQ(waitpid(child.pid(), nullptr, WNOHANG), 0);  // and running on
}

TEST(CodePatcher, WritesAndRestoresWhenNoThreadIsInside) {
  Child child(&memframe_test_elsewhere);
  if (!child.Traceable()) GTEST_SKIP() << "ptrace is not allowed here";
  CodePatch patch = EntryPatchOf(&memframe_test_idle);
  CodePatchResult result = ApplyCodePatches(child.pid(), {patch}, false);
  EXPECT_TRUE(result.refused.empty()) << result.refused[0];
  ASSERT_EQ(result.written.size(), 1u);
  EXPECT_EQ(result.tries, 1);
  EXPECT_EQ(child.Read(patch.word_at), patch.to);
  EXPECT_EQ(WordAt(&memframe_test_idle), patch.from);  // the child's own copy only
  result = ApplyCodePatches(child.pid(), {patch}, true);
  EXPECT_EQ(result.written.size(), 1u);
  EXPECT_EQ(child.Read(patch.word_at), patch.from);
  EXPECT_EQ(waitpid(child.pid(), nullptr, WNOHANG), 0);
}

TEST(CodePatcher, NeverWritesOverCodeThatChanged) {
  Child child(&memframe_test_elsewhere);
  if (!child.Traceable()) GTEST_SKIP() << "ptrace is not allowed here";
  CodePatch patch = EntryPatchOf(&memframe_test_idle);
  patch.from ^= 0xff00;  // not what is there
  CodePatchResult result = ApplyCodePatches(child.pid(), {patch}, false);
  EXPECT_TRUE(result.written.empty());
  ASSERT_EQ(result.refused.size(), 1u);
  EXPECT_NE(result.refused[0].find("its code changed since the agent prepared it"), std::string::npos)
      << result.refused[0];
  EXPECT_EQ(child.Read(patch.word_at), WordAt(&memframe_test_idle));
  // A restore of a patch memframe never wrote is refused the same way.
  result = ApplyCodePatches(child.pid(), {EntryPatchOf(&memframe_test_idle)}, true);
  ASSERT_EQ(result.refused.size(), 1u);
  EXPECT_NE(result.refused[0].find("its entry not restored by memframe"), std::string::npos) << result.refused[0];
}

// The agent's lines (agent/attach/entry_trampolines.h, PublishEntryPatches).
TEST(EntryPatchRequests, ParsesTheAgentsLinesAndRefusesABadFile) {
  std::vector<CodePatch> patches;
  std::string error;
  ASSERT_TRUE(ParseEntryPatches("7f0000001118 c3c95d0000 c3c9fffff0e9 7f000000111a 5 glXSwapBuffers\n"
                                "7f0000002000 1 2 7f0000002003 5 glfwSwapBuffers\n",
                                &patches, &error))
      << error;
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].name, "glXSwapBuffers");
  EXPECT_EQ(patches[0].word_at, 0x7f0000001118u);
  EXPECT_EQ(patches[0].from, 0xc3c95d0000u);
  EXPECT_EQ(patches[0].to, 0xc3c9fffff0e9u);
  EXPECT_EQ(patches[0].first, 0x7f000000111au);
  EXPECT_EQ(patches[0].length, 5u);
  EXPECT_EQ(patches[1].name, "glfwSwapBuffers");
  for (const char* bad : {"7f0000001119 1 2 7f0000001119 5 unaligned\n", "1000 1 2 1004 5 past_the_word\n",
                          "1000 1 2 1000 5\n", "1000 zz 2 1000 5 x\n"}) {
    patches.assign(1, CodePatch{});
    EXPECT_FALSE(ParseEntryPatches(bad, &patches, &error)) << bad;
    EXPECT_NE(error.find("is not one"), std::string::npos) << error;
    EXPECT_EQ(patches.size(), 1u);  // left as it was
  }
}

}  // namespace
}  // namespace memframe::injector
