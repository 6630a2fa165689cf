// The Windows side of capture/stack_capture.h and fast_unwinder.h: the
// system's unwinder (RtlCaptureStackBackTrace reads the x64 unwind tables
// every PE carries, MinGW's included), with the agent's own frames cut off
// the top by address.
#include <windows.h>

#include "capture/fast_unwinder.h"
#include "capture/recent_stacks.h"
#include "capture/stack_capture.h"

namespace memframe::agent {

namespace {
uint64_t g_self_begin = 0, g_self_end = 0;  // the agent DLL's image

bool InAgent(uint64_t pc) { return pc >= g_self_begin && pc < g_self_end; }
}  // namespace

void InitStackCapture() {
  HMODULE self = nullptr;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          reinterpret_cast<LPCWSTR>(&InitStackCapture), &self))
    return;
  auto* base = reinterpret_cast<const uint8_t*>(self);
  auto* nt = reinterpret_cast<const IMAGE_NT_HEADERS*>(base + reinterpret_cast<const IMAGE_DOS_HEADER*>(base)->e_lfanew);
  g_self_begin = reinterpret_cast<uint64_t>(base);
  g_self_end = g_self_begin + nt->OptionalHeader.SizeOfImage;
}

int CaptureStack(uint64_t* frames, int max_depth, const void*) {
  // The agent's own frames (hook, recorder, this) come first: a few more
  // are asked for and skipped.
  constexpr int kAgentFramesMax = 8;
  void* pcs[kMaxStackDepth + kAgentFramesMax];
  int want = max_depth + kAgentFramesMax;
  if (want > kMaxStackDepth + kAgentFramesMax) want = kMaxStackDepth + kAgentFramesMax;
  int n = RtlCaptureStackBackTrace(0, static_cast<DWORD>(want), pcs, nullptr);
  int first = 0;
  while (first < n && InAgent(reinterpret_cast<uint64_t>(pcs[first]))) ++first;
  int depth = 0;
  // Wine's walk may run past the thread's first frame into values that are
  // no return address (0, small numbers): the stack ends at the first.
  // Below KiUserCallbackDispatcher (a window procedure called back by the
  // system), Wine's frame holds a made-up return address: no frame.
  constexpr uint64_t kWineCallbackSentinel = 0xdeadbabe;
  for (int i = first; i < n && depth < max_depth; ++i) {
    uint64_t pc = reinterpret_cast<uint64_t>(pcs[i]);
    if (pc < 0x10000) break;
    if (pc == kWineCallbackSentinel) continue;
    frames[depth++] = pc;
  }
  return depth;
}

// No walk to repeat: the system's unwinder reads no rule cache of ours.
uint32_t CaptureStackId(StackMemo&, RecentStacks& recent, int max_depth, const void* hook_frame) {
  uint64_t frames[kMaxStackDepth];
  int depth = CaptureStack(frames, max_depth, hook_frame);
  return depth > 0 ? InternStackRecent(recent, frames, depth) : 0;
}

void ModulesUnloaded() {}
void SetFastUnwind(bool) {}
void PrefaultFastUnwinder() {}

}  // namespace memframe::agent
