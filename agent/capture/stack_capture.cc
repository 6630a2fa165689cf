#include "capture/stack_capture.h"

#include "capture/fast_unwinder.h"
#include "capture/recursion_guard.h"

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
  // Caching per thread makes repeated unwinds through the same code cheap.
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  InitFastUnwinder();  // without it, FastBacktrace declines and libunwind does it all
}

void ModulesUnloaded() { InvalidateFastUnwinder(); }

void SetFastUnwind(bool enabled) { g_fast_unwind = enabled; }

int CaptureStack(uint64_t* frames, int max_depth, const void* hook_frame) {
  // A few extra slots for the agent's own frames, which are dropped. From
  // the hook's frame there are none (one if the compiler kept a helper
  // apart, which the cut below still drops).
  constexpr int kAgentFramesSlack = 8;
  constexpr int kHookFrameSlack = 1;
  void* raw[kMaxStackDepth + kAgentFramesSlack];
  if (max_depth > kMaxStackDepth) max_depth = kMaxStackDepth;
  // Both give the same frames; the agent's own unwinder declines whatever
  // it cannot follow exactly.
  int n = -1;
  NoteThreadStack();
  if (g_fast_unwind)
    n = hook_frame ? FastBacktraceFrom(hook_frame, raw, max_depth + kHookFrameSlack)
                   : FastBacktrace(raw, max_depth + kAgentFramesSlack);
#ifdef MEMFRAME_UNWIND_SELFCHECK
  // Development check on real programs: every answer against libunwind's
  // (configure with -DCMAKE_CXX_FLAGS=-DMEMFRAME_UNWIND_SELFCHECK, run under
  // `memframe run --agent`; mismatches and totals go to stderr).
  static std::atomic<uint64_t> answered{0}, declined{0};
  static struct Totals {
    ~Totals() {
      char line[120];
      int len = snprintf(line, sizeof line, "memframe: fast unwinder answered %llu, declined %llu\n",
                         static_cast<unsigned long long>(answered.load()),
                         static_cast<unsigned long long>(declined.load()));
      write(2, line, len);
    }
  } totals;
  (n >= 0 ? answered : declined).fetch_add(1);
  if (n >= 0) {
    // The game's frames of each: both start inside the agent (libunwind
    // always, the fast unwinder unless it started from the hook's frame).
    void* check[kMaxStackDepth + kAgentFramesSlack];
    int m = unw_backtrace(check, max_depth + kAgentFramesSlack);
    int fast_from = 0, check_from = 0;
    while (fast_from < n && InAgent(reinterpret_cast<uintptr_t>(raw[fast_from]))) ++fast_from;
    while (check_from < m && InAgent(reinterpret_cast<uintptr_t>(check[check_from]))) ++check_from;
    const int fast_depth = n - fast_from < max_depth ? n - fast_from : max_depth;
    const int check_depth = m - check_from < max_depth ? m - check_from : max_depth;
    bool same = fast_depth == check_depth;
    for (int i = 0; same && i < fast_depth; ++i) same = raw[fast_from + i] == check[check_from + i];
    static int reported = 0;
    if (!same && reported++ < 20) {
      char line[160];
      int len = snprintf(line, sizeof line, "memframe: UNWIND MISMATCH fast %d libunwind %d\n", n, m);
      write(2, line, len);
      for (int i = 0; i < (n > m ? n : m); ++i) {
        len = snprintf(line, sizeof line, "  %2d %p %p\n", i, i < n ? raw[i] : nullptr, i < m ? check[i] : nullptr);
        write(2, line, len);
      }
    }
  }
#endif
  if (n < 0) {
    // libunwind maps memory for its caches through the PLT: the agent's
    // own work, not the game's and not a signal handler's.
    RecursionGuard agent_work;
    n = unw_backtrace(raw, max_depth + kAgentFramesSlack);
  }
  int skip = 0;
  while (skip < n && InAgent(reinterpret_cast<uintptr_t>(raw[skip]))) ++skip;
  int depth = n - skip;
  if (depth > max_depth) depth = max_depth;
  for (int i = 0; i < depth; ++i) frames[i] = reinterpret_cast<uint64_t>(raw[skip + i]);
  return depth < 0 ? 0 : depth;
}

}  // namespace memframe::agent
