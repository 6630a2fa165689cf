// The agent's own unwinder against libunwind: on every stack shape it must
// give exactly unw_backtrace's frames or decline, and on ordinary code it
// must answer (so a dead fast path fails here, not only in a benchmark).
#include "capture/fast_unwinder.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "capture/stack_capture.h"
#include "fast_unwinder_test_chain.h"
#include "writer/module_map.h"

namespace memframe::agent::unwind_test {

#define KEEP_FRAME() asm volatile("" ::: "memory")

namespace {
constexpr int kMaxFrames = 512;

struct Result {
  int n_unw = -2;
  int n_fast = -2;
  void* unw[kMaxFrames];
  void* fast[kMaxFrames];
};

void (*g_dyn_step)(Chain*, void (*)(Chain*)) = nullptr;

__attribute__((noinline)) void CompareProbe(Chain* c) {
  auto* r = static_cast<Result*>(c->result);
  r->n_unw = unw_backtrace(r->unw, c->size);
  r->n_fast = FastBacktrace(r->fast, c->size);
  KEEP_FRAME();
}

__attribute__((noinline)) Result RunChain(const std::string& pattern, int size) {
  EXPECT_TRUE(InitFastUnwinder());
  NoteThreadStack();  // as CaptureStack does: walks bounded by the stack's top
  Result r;
  Chain c{pattern.c_str(), CompareProbe, &r, size, 0};
  Next(&c);
  KEEP_FRAME();
  return r;
}

// Equal to libunwind, or declined. raw[0] is each one's own call site in
// CompareProbe, so it is only checked to be close.
void ExpectSameOrDeclined(const Result& r, const std::string& what) {
  ASSERT_GT(r.n_unw, 0) << what;
  if (r.n_fast < 0) return;
  ASSERT_EQ(r.n_fast, r.n_unw) << what;
  auto a = reinterpret_cast<uintptr_t>(r.unw[0]), b = reinterpret_cast<uintptr_t>(r.fast[0]);
  EXPECT_LT(a > b ? a - b : b - a, 256u) << what;
  for (int i = 1; i < r.n_unw; ++i) EXPECT_EQ(r.fast[i], r.unw[i]) << what << " frame " << i;
}

void ExpectAnswered(const Result& r, const std::string& what) {
  EXPECT_GE(r.n_fast, 0) << what << ": the fast unwinder declined ordinary code";
  ExpectSameOrDeclined(r, what);
}

std::string Repeat(const std::string& s, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += s;
  return out;
}

// Ordinary code only (no huge frames, no signals).
const char* const kOrdinary[] = {"",        "f",          "o",         "fafmoAMbe", "oooooo",   "ebMAfm",
                                 "l",       "lfo",        "olMe",      "flAlm",     "rrrrrrrr", "Mbl",
                                 "emfaoAl", "bbbbbbbbbb", "MMMMMMMM", "aAaAaA"};
}  // namespace

__attribute__((noinline)) void Next(Chain* c) {
  char letter = *c->pattern;
  if (letter) ++c->pattern;
  switch (letter) {
    case '\0': c->probe(c); break;
    case 'f': FpPlain(c); break;
    case 'a': FpAlloca(c); break;
    case 'm': FpManyArgs(c); break;
    case 'o': NoFpPlain(c); break;
    case 'A': NoFpAlloca(c); break;
    case 'M': NoFpManyArgs(c); break;
    case 'b': NoFpBigFrame(c); break;
    case 'H': NoFpHugeFrame(c); break;
    case 'e': NoFpEarlyReturn(c); break;
    case 'r': NoFpRecursion(c); break;
    case 'l': memframe_unwind_test_lib_step(c, Next); break;
    case 'd': g_dyn_step(c, Next); break;
    default: ADD_FAILURE() << "unknown letter " << letter;
  }
  KEEP_FRAME();
}

TEST(FastUnwinder, AnswersOrdinaryStacksWithLibunwindsFrames) {
  for (const char* pattern : kOrdinary) {
    for (int size : {1, 2, 3, 8, 40, kMaxFrames}) {
      Result r = RunChain(pattern, size);
      ExpectAnswered(r, std::string("pattern '") + pattern + "' size " + std::to_string(size));
      if (size == kMaxFrames) {
        EXPECT_LT(r.n_unw, kMaxFrames) << "the whole stack, down to _start";
      }
    }
  }
}

// A function whose call returns exactly to the first byte of a page: the
// bytes after that return address are on the next page, which the
// trampoline check must not take as unknown (it once declined every such
// frame). 10 bytes of prologue and moves, 4 nops, a 2-byte call ending at
// byte 16 of a function placed 16 bytes before a page boundary.
extern "C" void MemframePageEdgeCall(void (*fn)(void*), void* arg);
asm(R"(
  .pushsection .text.memframe_page_edge,"ax",@progbits
  .p2align 12
  .skip 4096 - 16
  .globl MemframePageEdgeCall
  .type MemframePageEdgeCall,@function
MemframePageEdgeCall:
  .cfi_startproc
  push %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  mov %rsp, %rbp
  .cfi_def_cfa_register %rbp
  mov %rdi, %rax
  mov %rsi, %rdi
  nop
  nop
  nop
  nop
  call *%rax
  pop %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size MemframePageEdgeCall, .-MemframePageEdgeCall
  .popsection
)");

__attribute__((noinline)) void PageEdgeProbe(void* arg) {
  auto* r = static_cast<Result*>(arg);
  r->n_unw = unw_backtrace(r->unw, kMaxFrames);
  r->n_fast = FastBacktrace(r->fast, kMaxFrames);
  KEEP_FRAME();
}

TEST(FastUnwinder, AReturnAddressThatStartsAPageIsAnswered) {
  ASSERT_TRUE(InitFastUnwinder());
  Result r;
  MemframePageEdgeCall(PageEdgeProbe, &r);
  ASSERT_GT(r.n_unw, 2);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(r.unw[1]) % 4096, 0u) << "the layout this test needs did not come out";
  ExpectAnswered(r, "return address at a page start");
}

// From a frame pointer further out (what a hook passes: its own frame), the
// unwind gives libunwind's frames from that function's return address on.
__attribute__((noinline)) void FromFrameProbe(Chain* c) {
  auto* r = static_cast<Result*>(c->result);
  r->n_unw = unw_backtrace(r->unw, c->size + 1);
  r->n_fast = FastBacktraceFrom(__builtin_frame_address(0), r->fast, c->size);
  KEEP_FRAME();
}

TEST(FastUnwinder, FromAFramePointerGivesTheFramesOutsideIt) {
  ASSERT_TRUE(InitFastUnwinder());
  for (const char* pattern : kOrdinary) {
    for (int size : {1, 2, 8, kMaxFrames - 1}) {
      Result r;
      Chain c{pattern, FromFrameProbe, &r, size, 0};
      Next(&c);
      const std::string what = std::string("pattern '") + pattern + "' size " + std::to_string(size);
      ASSERT_GT(r.n_unw, 1) << what;
      ASSERT_EQ(r.n_fast, r.n_unw - 1) << what;
      for (int i = 0; i < r.n_fast; ++i) EXPECT_EQ(r.fast[i], r.unw[i + 1]) << what << " frame " << i;
    }
  }
}

// Wrong rules (stale ones, or hand-written assembly's) may lead a walk past
// the top of the thread's stack; it must decline there, never read on. A
// thread on a stack of our own with an inaccessible page right above it
// walks a frame whose saved rbp points just below that page.
__attribute__((noinline)) void FramePointerSiteProbe(Chain* c) {
  void* raw[8];
  int n = FastBacktrace(raw, 8);
  // raw[0] is in this probe, raw[1] in Next, raw[2] in FpPlain after its
  // call: a place whose rule is "CFA = rbp + 16".
  *static_cast<void**>(c->result) = n > 2 ? raw[2] : nullptr;
  KEEP_FRAME();
}

struct PastTheTop {
  void* frame_pointer_site;
  uint64_t top;
  int answer = -2;
};

void* WalkPastTheTop(void* arg) {
  auto* p = static_cast<PastTheTop*>(arg);
  NoteThreadStack();
  uint64_t frame[2] = {p->top - 8, reinterpret_cast<uint64_t>(p->frame_pointer_site)};
  void* raw[8];
  p->answer = FastBacktraceFrom(frame, raw, 8);
  return nullptr;
}

TEST(FastUnwinder, AWalkNeverReadsAboveTheThreadsStack) {
  ASSERT_TRUE(InitFastUnwinder());
  PastTheTop p{};
  Chain c{"f", FramePointerSiteProbe, &p.frame_pointer_site, 8, 0};
  Next(&c);
  ASSERT_NE(p.frame_pointer_site, nullptr);

  const size_t stack_bytes = 256 << 10, page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* map = static_cast<char*>(
      mmap(nullptr, stack_bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(map, MAP_FAILED);
  ASSERT_EQ(mprotect(map + stack_bytes, page, PROT_NONE), 0);
  p.top = reinterpret_cast<uint64_t>(map + stack_bytes);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, map, stack_bytes);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, WalkPastTheTop, &p), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  munmap(map, stack_bytes + page);
  EXPECT_EQ(p.answer, -1) << "the walk should decline at the top of the stack";
}

TEST(FastUnwinder, SecondRunFromTheCacheIsTheSame) {
  for (int round = 0; round < 3; ++round) {
    for (const char* pattern : kOrdinary) ExpectAnswered(RunChain(pattern, kMaxFrames), pattern);
  }
}

TEST(FastUnwinder, DeepStacksAreCutLikeLibunwindCutsThem) {
  for (const std::string& pattern : {std::string(100, 'r'), Repeat("foMAmeabl", 12), Repeat("of", 60)}) {
    for (int size : {16, 64, 72, 100, kMaxFrames}) {
      Result r = RunChain(pattern, size);
      ExpectAnswered(r, pattern + " size " + std::to_string(size));
      if (size <= 100) {
        EXPECT_EQ(r.n_unw, size);
      }
    }
  }
}

TEST(FastUnwinder, FramesItCannotDescribeMakeItDecline) {
  // 40000 bytes of locals: a CFA offset beyond the cache's rule.
  for (const char* pattern : {"H", "fHo", "lHl"}) {
    Result r = RunChain(pattern, kMaxFrames);
    ExpectSameOrDeclined(r, pattern);
    EXPECT_LT(r.n_fast, 0) << pattern;
  }
  // Shallow enough that the huge frame is never reached: answered.
  ExpectAnswered(RunChain("fooH", 3), "fooH cut above the huge frame");
}

TEST(FastUnwinder, OtherThreadsEndAtTheirOwnBottomFrame) {
  std::vector<Result> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] { results[t] = RunChain(kOrdinary[3 + t], kMaxFrames); });
  }
  for (auto& t : threads) t.join();
  for (size_t t = 0; t < results.size(); ++t) ExpectAnswered(results[t], kOrdinary[3 + t]);
}

TEST(FastUnwinder, ConcurrentUnwindsWhileTheCacheIsDropped) {
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        Result r = RunChain(kOrdinary[(t * 5 + i) % (sizeof kOrdinary / sizeof *kOrdinary)], kMaxFrames);
        bool same = r.n_fast < 0 || r.n_fast == r.n_unw;
        for (int k = 1; same && k < r.n_unw; ++k) same = r.fast[k] == r.unw[k];
        if (!same) bad.fetch_add(1);
      }
    });
  }
  std::thread dropper([&] {
    while (!stop.load()) {
      InvalidateFastUnwinder();
      std::this_thread::yield();
    }
  });
  for (auto& t : threads) t.join();
  stop = true;
  dropper.join();
  EXPECT_EQ(bad.load(), 0);
}

namespace {
Result g_signal_result;
void OnSignal(int) {
  // Unwinding in a signal handler: through __restore_rt into the
  // interrupted frame. The fast unwinder must decline or agree.
  Chain c{"fo", CompareProbe, &g_signal_result, kMaxFrames, 0};
  Next(&c);
}
}  // namespace

TEST(FastUnwinder, SignalHandlerFramesAreLeftToLibunwind) {
  ASSERT_TRUE(InitFastUnwinder());
  struct sigaction sa {}, old {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  for (int i = 0; i < 2; ++i) {  // the second time from the cache
    g_signal_result = Result{};
    raise(SIGUSR1);
    ExpectSameOrDeclined(g_signal_result, "signal handler");
    EXPECT_LT(g_signal_result.n_fast, 0) << "a signal frame must not be walked by the cache";
    EXPECT_GT(g_signal_result.n_unw, 6) << "libunwind goes on past the signal frame";
  }
  sigaction(SIGUSR1, &old, nullptr);
}

TEST(FastUnwinder, ModuleReplacedAfterDlcloseIsUnwoundFromItsOwnRules) {
  for (const char* path : {MEMFRAME_UNWIND_TEST_DYN_A, MEMFRAME_UNWIND_TEST_DYN_B, MEMFRAME_UNWIND_TEST_DYN_A}) {
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    g_dyn_step = reinterpret_cast<decltype(g_dyn_step)>(dlsym(lib, "memframe_unwind_test_lib_step"));
    ASSERT_NE(g_dyn_step, nullptr);
    for (const char* pattern : {"d", "odf", "MdAd"}) ExpectAnswered(RunChain(pattern, kMaxFrames), path);
    g_dyn_step = nullptr;
    dlclose(lib);
    ModulesUnloaded();  // what the agent's dlclose hook does
  }
}

// The writer's periodic look at the loader (writer_thread.cc) tells an
// unload from a load, so that unloads that never pass the dlclose hook (libc
// closes its own iconv and NSS modules) still drop the cached rules.
TEST(FastUnwinder, TheWritersLoaderCheckTellsUnloadsFromLoads) {
  bool unloaded = true;
  LoadedObjectsChanged(&unloaded);  // whatever came before this test
  EXPECT_FALSE(LoadedObjectsChanged(&unloaded));
  EXPECT_FALSE(unloaded);
  void* lib = dlopen(MEMFRAME_UNWIND_TEST_DYN_A, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  EXPECT_TRUE(LoadedObjectsChanged(&unloaded));
  EXPECT_FALSE(unloaded) << "a load is not an unload";
  void* again = dlopen(MEMFRAME_UNWIND_TEST_DYN_A, RTLD_NOW | RTLD_LOCAL);
  dlclose(again);
  EXPECT_FALSE(LoadedObjectsChanged(&unloaded)) << "a reference taken and dropped changes nothing";
  dlclose(lib);
  EXPECT_TRUE(LoadedObjectsChanged(&unloaded));
  EXPECT_TRUE(unloaded);
  EXPECT_FALSE(LoadedObjectsChanged(&unloaded));
  EXPECT_FALSE(unloaded);
}

// The agent's dlclose hook (process_hooks.cc) drops the cached rules only
// when the loader's counters say an object went away: a dlclose that only
// drops a reference (LLVM makes one per shader) must keep them, and every
// real unload, and every load, must be seen.
TEST(FastUnwinder, LoaderCountersSeeEveryLoadAndUnloadButNotAReferenceDrop) {
  const LoaderCounts start = ReadLoaderCounts();
  void* lib = dlopen(MEMFRAME_UNWIND_TEST_DYN_A, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  const LoaderCounts loaded = ReadLoaderCounts();
  EXPECT_GT(loaded.adds, start.adds);
  EXPECT_EQ(loaded.subs, start.subs);
  void* again = dlopen(MEMFRAME_UNWIND_TEST_DYN_A, RTLD_NOW | RTLD_LOCAL);  // one more reference
  ASSERT_EQ(again, lib);
  EXPECT_EQ(ReadLoaderCounts().adds, loaded.adds);

  g_dyn_step = reinterpret_cast<decltype(g_dyn_step)>(dlsym(lib, "memframe_unwind_test_lib_step"));
  ASSERT_NE(g_dyn_step, nullptr);
  ExpectAnswered(RunChain("MdAd", kMaxFrames), "loaded");
  dlclose(again);
  EXPECT_EQ(ReadLoaderCounts().subs, loaded.subs) << "a reference drop unloads nothing";
  ExpectAnswered(RunChain("MdAd", kMaxFrames), "after a reference drop, from the kept rules");

  g_dyn_step = nullptr;
  dlclose(lib);
  const LoaderCounts unloaded = ReadLoaderCounts();
  ASSERT_NE(unloaded.subs, loaded.subs) << "the last dlclose unloaded the library";
  ModulesUnloaded();  // what the hook does on seeing it
  // Another build of the library, likely where the first one was.
  lib = dlopen(MEMFRAME_UNWIND_TEST_DYN_B, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  EXPECT_GT(ReadLoaderCounts().adds, unloaded.adds);
  g_dyn_step = reinterpret_cast<decltype(g_dyn_step)>(dlsym(lib, "memframe_unwind_test_lib_step"));
  ASSERT_NE(g_dyn_step, nullptr);
  ExpectAnswered(RunChain("MdAd", kMaxFrames), "the other build");
  g_dyn_step = nullptr;
  dlclose(lib);
  EXPECT_NE(ReadLoaderCounts().subs, unloaded.subs);
  ModulesUnloaded();
}

namespace {
struct CaptureResult {
  int n_fast, n_unw;
  uint64_t fast[kMaxStackDepth], unw[kMaxStackDepth];
};

__attribute__((noinline)) void CaptureProbe(Chain* c) {
  auto* r = static_cast<CaptureResult*>(c->result);
  SetFastUnwind(true);
  r->n_fast = CaptureStack(r->fast, c->size);
  SetFastUnwind(false);
  r->n_unw = CaptureStack(r->unw, c->size);
  SetFastUnwind(true);
  KEEP_FRAME();
}
}  // namespace

TEST(FastUnwinder, CaptureStackGivesTheSameFramesEitherWay) {
  InitStackCapture();
  // The agent core is linked into this test, so CaptureStack cuts the
  // test's own leading frames: the stacks start at the shared library.
  for (const char* pattern : {"lfo", "Mlbl", "eAlm"}) {
    for (int depth : {1, 4, 16, 32, kMaxStackDepth}) {
      CaptureResult r{};
      Chain c{pattern, CaptureProbe, &r, depth, 0};
      Next(&c);
      ASSERT_GT(r.n_unw, 0) << pattern;
      ASSERT_EQ(r.n_fast, r.n_unw) << pattern << " depth " << depth;
      for (int i = 0; i < r.n_unw; ++i) EXPECT_EQ(r.fast[i], r.unw[i]) << pattern << " frame " << i;
    }
  }
}

}  // namespace memframe::agent::unwind_test
