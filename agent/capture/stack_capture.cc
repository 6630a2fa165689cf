#include "capture/stack_capture.h"

#include "capture/fast_unwinder.h"
#include "capture/recent_stacks.h"
#include "capture/recursion_guard.h"
#include "capture/stack_table.h"
#include "capture/unwinder_pipe.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>

#include <cstring>
#ifdef MEMFRAME_UNWIND_SELFCHECK
#include <unistd.h>

#include <atomic>
#include <cstdio>
#endif

namespace memframe::agent {

namespace {
uintptr_t g_agent_begin = 0;
uintptr_t g_agent_end = 0;

int FindAgentText(dl_phdr_info* info, size_t, void* data) {
  auto self = reinterpret_cast<uintptr_t>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    uintptr_t end = begin + ph.p_memsz;
    if (self >= begin && self < end) {
      g_agent_begin = begin;
      g_agent_end = end;
      return 1;
    }
  }
  return 0;
}

bool InAgent(uintptr_t ip) { return ip >= g_agent_begin && ip < g_agent_end; }

bool g_fast_unwind = true;
}  // namespace

void InitStackCapture() {
  dl_iterate_phdr(FindAgentText, reinterpret_cast<void*>(&InitStackCapture));
  RedirectUnwinderPipe();  // before libunwind's first call opens its pipe
  // Caching per thread makes repeated unwinds through the same code cheap.
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  InitFastUnwinder();  // without it, FastBacktrace declines and libunwind does it all
}

void ModulesUnloaded() { InvalidateFastUnwinder(); }

void SetFastUnwind(bool enabled) { g_fast_unwind = enabled; }

namespace {
// A few extra slots for the agent's own frames, which are dropped. From the
// hook's frame there are none (one if the compiler kept a helper apart,
// which the cut below still drops).
constexpr int kAgentFramesSlack = 8;
constexpr int kHookFrameSlack = 1;

// The game's frames of raw[0..n): the agent's own cut off the top, at most
// max_depth.
int GameFrames(void* const* raw, int n, int max_depth, uint64_t* frames) {
  int skip = 0;
  while (skip < n && InAgent(reinterpret_cast<uintptr_t>(raw[skip]))) ++skip;
  int depth = n - skip;
  if (depth > max_depth) depth = max_depth;
  for (int i = 0; i < depth; ++i) frames[i] = reinterpret_cast<uint64_t>(raw[skip + i]);
  return depth < 0 ? 0 : depth;
}

#ifdef MEMFRAME_UNWIND_SELFCHECK
// Development check on real programs: every answer of the agent's own
// unwinder, walked or repeated (StackMemo), against libunwind's (configure
// with -DCMAKE_CXX_FLAGS=-DMEMFRAME_UNWIND_SELFCHECK, run under `memframe
// run --agent`; mismatches and totals go to stderr).
std::atomic<uint64_t> g_answered{0}, g_repeated{0}, g_declined{0};
struct Totals {
  ~Totals() {
    char line[160];
    int len = snprintf(line, sizeof line, "memframe: fast unwinder answered %llu (repeated %llu), declined %llu\n",
                       static_cast<unsigned long long>(g_answered.load()),
                       static_cast<unsigned long long>(g_repeated.load()),
                       static_cast<unsigned long long>(g_declined.load()));
    write(2, line, len);
  }
} g_totals;

__attribute__((noinline)) void SelfCheck(const uint64_t* frames, int depth, int max_depth) {
  void* check[kMaxStackDepth + kAgentFramesSlack + 4];
  uint64_t expected[kMaxStackDepth];
  int m = unw_backtrace(check, max_depth + kAgentFramesSlack + 4);
  int expected_depth = GameFrames(check, m, max_depth, expected);
  bool same = depth == expected_depth;
  for (int i = 0; same && i < depth; ++i) same = frames[i] == expected[i];
  static int reported = 0;
  if (!same && reported++ < 20) {
    char line[160];
    int len = snprintf(line, sizeof line, "memframe: UNWIND MISMATCH fast %d libunwind %d\n", depth, expected_depth);
    write(2, line, len);
    for (int i = 0; i < (depth > expected_depth ? depth : expected_depth); ++i) {
      len = snprintf(line, sizeof line, "  %2d %llx %llx\n", i,
                     static_cast<unsigned long long>(i < depth ? frames[i] : 0),
                     static_cast<unsigned long long>(i < expected_depth ? expected[i] : 0));
      write(2, line, len);
    }
  }
}
#endif

// CaptureStack; a walk from the hook's frame fills `trace` too, if given.
__attribute__((always_inline)) inline int Capture(uint64_t* frames, int max_depth, const void* hook_frame,
                                                  WalkTrace* trace) {
  void* raw[kMaxStackDepth + kAgentFramesSlack];
  if (max_depth > kMaxStackDepth) max_depth = kMaxStackDepth;
  // Both give the same frames; the agent's own unwinder declines whatever
  // it cannot follow exactly.
  int n = -1;
  NoteThreadStack();
  if (g_fast_unwind) {
    if (!hook_frame)
      n = FastBacktrace(raw, max_depth + kAgentFramesSlack);
    else if (trace)
      n = FastBacktraceFrom(hook_frame, raw, max_depth + kHookFrameSlack, trace);
    else
      n = FastBacktraceFrom(hook_frame, raw, max_depth + kHookFrameSlack);
  }
  if (n < 0) {
    // libunwind maps memory for its caches through the PLT: the agent's
    // own work, not the game's and not a signal handler's.
    RecursionGuard agent_work;
    n = unw_backtrace(raw, max_depth + kAgentFramesSlack);
#ifdef MEMFRAME_UNWIND_SELFCHECK
    g_declined.fetch_add(1);
#endif
    return GameFrames(raw, n, max_depth, frames);
  }
  const int depth = GameFrames(raw, n, max_depth, frames);
#ifdef MEMFRAME_UNWIND_SELFCHECK
  g_answered.fetch_add(1);
  SelfCheck(frames, depth, max_depth);
#endif
  return depth;
}
}  // namespace

int CaptureStack(uint64_t* frames, int max_depth, const void* hook_frame) {
  return Capture(frames, max_depth, hook_frame, nullptr);
}

uint32_t CaptureStackId(StackMemo& memo, RecentStacks& recent, int max_depth, const void* hook_frame) {
  if (max_depth > kMaxStackDepth) max_depth = kMaxStackDepth;
  WalkTrace* trace = nullptr;
  if (hook_frame && g_fast_unwind) {
    const int repeated = RepeatedWalk(memo.walk, StackMemo::kEntries, hook_frame, max_depth + kHookFrameSlack);
    if (repeated >= 0) {
#ifdef MEMFRAME_UNWIND_SELFCHECK
      g_repeated.fetch_add(1);
      int depth = 0;
      const uint64_t* frames = StackFrames(memo.id[repeated], &depth);
      SelfCheck(frames, depth, max_depth);
#endif
      return memo.id[repeated];
    }
    trace = &memo.walk[memo.next];
  }
  uint64_t frames[kMaxStackDepth];
  const int depth = Capture(frames, max_depth, hook_frame, trace);
  const uint32_t id = depth > 0 ? InternStackRecent(recent, frames, depth) : 0;
  if (trace && trace->frame) {
    if (id) {
      memo.id[memo.next] = id;
      memo.next = (memo.next + 1) % StackMemo::kEntries;
    } else {
      trace->frame = 0;  // nothing to answer with (the table is full)
    }
  }
  return id;
}

}  // namespace memframe::agent
