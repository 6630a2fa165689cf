#include "capture/stack_capture.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>

#include <cstring>

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
}  // namespace

void InitStackCapture() {
  dl_iterate_phdr(FindAgentText, reinterpret_cast<void*>(&InitStackCapture));
  // Caching per thread makes repeated unwinds through the same code cheap.
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

int CaptureStack(uint64_t* frames, int max_depth) {
  // A few extra slots for the agent's own frames, which are dropped.
  constexpr int kAgentFramesSlack = 8;
  void* raw[kMaxStackDepth + kAgentFramesSlack];
  if (max_depth > kMaxStackDepth) max_depth = kMaxStackDepth;
  int n = unw_backtrace(raw, max_depth + kAgentFramesSlack);
  int skip = 0;
  while (skip < n && InAgent(reinterpret_cast<uintptr_t>(raw[skip]))) ++skip;
  int depth = n - skip;
  if (depth > max_depth) depth = max_depth;
  for (int i = 0; i < depth; ++i) frames[i] = reinterpret_cast<uint64_t>(raw[skip + i]);
  return depth < 0 ? 0 : depth;
}

}  // namespace memframe::agent
