// memframe_agent.dll's start-up and shutdown. Two ways in:
// - `memframe.exe run` puts the agent first in the new process's import
//   table (injector/windows/import_table_windows.h), and its DllMain starts
//   recording before any DLL the program imports is initialised, so their
//   DllMains and global constructors are seen. That runs under the loader
//   lock: connecting the socket and creating the writer's thread are safe
//   there, but the thread cannot run until the loader lets go, so until then
//   a full ring drops events (thread_buffer.h, SetConsumerRunning).
// - `memframe.exe attach` loads the agent with a remote LoadLibraryW and
//   calls MemframeStart in a thread of its own, outside the loader lock.
#include <windows.h>

#include <atomic>
#include <cstring>
#include <cwchar>

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/recorder.h"
#include "capture/recursion_guard.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "memframe/format.h"
#include "platform/windows/command_line_windows.h"
#include "platform/windows/iat_patch.h"
#include "platform/windows/present_hooks_windows.h"
#include "platform/windows/symbols_windows.h"
#include "platform/windows/windows_agent.h"
#include "runtime/config.h"
#include "runtime/diagnostics.h"
#include "runtime/stream_start.h"
#include "writer/writer_thread.h"

namespace memframe::agent {

namespace {
SocketSink g_sink;
std::atomic<bool> g_started{false};
// The thread that ran Start. The agent's own WSAStartup and connect there
// leave ws2_32 per-thread data, which ws2_32 frees in its DllMain when the
// thread ends, after the agent's own DLL_THREAD_DETACH (a thread's end is
// told to the DLLs in the reverse order of their initialisation, and
// ws2_32, one of the agent's imports, initialised first): from there on the
// thread's calls are the agent's, not the program's (whose DLLs, initialised
// after the agent, have been told already).
std::atomic<DWORD> g_start_thread{0};
// Start's answer (0: recording), for the MemframeStart that follows a start
// in DllMain; kStartPending until there is one.
constexpr unsigned long kStartPending = 2;
std::atomic<unsigned long> g_start_result{kStartPending};
std::atomic<bool> g_stopping{false};
char g_executable[MAX_PATH * 4];
char g_cmdline[8192];

void ReadExecutable() {
  wchar_t wide[MAX_PATH * 2];
  DWORD n = GetModuleFileNameW(nullptr, wide, MAX_PATH * 2);
  g_executable[0] = '\0';
  if (n == 0 || n >= MAX_PATH * 2) return;
  wide[n] = L'\0';
  if (WideCharToMultiByte(CP_UTF8, 0, wide, -1, g_executable, sizeof(g_executable), nullptr, nullptr) <= 0)
    g_executable[0] = '\0';
}

// MEMFRAME_FRAME_SOURCE: "auto", "slices" or a Windows present; memframe.exe
// refuses the rest (a Linux present) before the game starts.
void ApplyFrameSource(const char* source) {
  if (!source || !*source || strcmp(source, "auto") == 0) return;
  if (strcmp(source, "slices") == 0) {
    ConfigureFrameSource(0, true);
  } else if (!ForceWindowsFrameSource(source)) {
    Warn("frame source '%s' is no Windows present; using auto", source);
  }
}

unsigned long Start(const MemframeStartOptions* start) {
  InitDiagnostics();
  Config config = ReadConfig();
  SetDebug(config.debug);
  if (start && (start->size != sizeof(*start) || !memchr(start->recorder, '\0', sizeof(start->recorder)))) {
    Warn("MemframeStart: options of another version of memframe.exe; not recording");
    return 1;
  }
  const char* address = start ? start->recorder : getenv(wire::kEnvTcp);
  if (!address || !*address) {
    Debug("%s is not set; passive", wire::kEnvTcp);
    return 1;
  }
  if (!ApplyCaptureConfig(config)) return 1;
  ApplyFrameSource(config.frame_source);
  if (!g_sink.Connect(address)) return 1;
  ReadExecutable();
  HelloInfo hello{};
  hello.pid = static_cast<uint32_t>(GetCurrentProcessId());
  hello.ppid = 0;
  hello.attached = start && start->attached;
  hello.executable = g_executable;
  hello.cmdline = g_cmdline;
  hello.cmdline_size = SplitCommandLine(GetCommandLineW(), g_cmdline, sizeof(g_cmdline));
  if (!StartStream(g_sink, hello, config, EncodeStackSymbols)) return 1;
  PatchLoadedModules();
  PatchEachLoadedDll();
  Debug("recording to %s", address);
  return 0;
}
}  // namespace

void StopWindowsAgent(const char* reason) {
  if (!g_recording.load(std::memory_order_acquire) || g_stopping.exchange(true)) return;
  RecursionGuard guard;
  // The names first, while the game's other threads are still recorded.
  ResolveStackSymbols();
  g_recording.store(false, std::memory_order_release);
  StopWriter(reason, 5000);
}

}  // namespace memframe::agent

namespace {
unsigned long StartOnce(const MemframeStartOptions* options) {
  using namespace memframe::agent;
  if (g_started.exchange(true)) return g_start_result.load(std::memory_order_acquire);
  RecursionGuard guard;  // everything the agent sets up is its own
  g_start_thread.store(GetCurrentThreadId(), std::memory_order_relaxed);
  unsigned long result = Start(options);
  g_start_result.store(result, std::memory_order_release);
  return result;
}
}  // namespace

extern "C" __declspec(dllexport) unsigned long __stdcall MemframeStart(void* options) {
  return StartOnce(static_cast<const MemframeStartOptions*>(options));
}

extern "C" __declspec(dllexport) unsigned long __stdcall MemframeStop(void*) {
  using namespace memframe::agent;
  // Not while the start still patches the modules (an attach's MemframeStart
  // in its own thread): the stop's loading of dbghelp.dll would patch beside
  // it, and the capture would end before its start did.
  unsigned long start = g_start_result.load(std::memory_order_acquire);
  if (start == kStartPending) return kMemframeStopStarting;
  if (start != 0 || !g_recording.load(std::memory_order_acquire)) return kMemframeStopNotRecording;
  StopWindowsAgent("detach");
  wchar_t name[64];
  swprintf(name, 64, L"%ls%lu", kMemframeDetachedEvent, static_cast<unsigned long>(GetCurrentProcessId()));
  if (HANDLE detached = OpenEventW(EVENT_MODIFY_STATE, FALSE, name)) {
    SetEvent(detached);
    CloseHandle(detached);
  }
  return 0;
}

extern "C" BOOL WINAPI DllMain(HINSTANCE, DWORD reason, LPVOID reserved) {
  // Non-null `reserved`: loaded with the process, as an import (memframe.exe
  // run put it there), not by LoadLibrary. MemframeStart then only reports.
  if (reason == DLL_PROCESS_ATTACH && reserved) StartOnce(nullptr);
  // The writer notices on its next scan (BufferThreadGone).
  if (reason == DLL_THREAD_DETACH) {
    memframe::agent::MarkCurrentThreadExiting();
    if (GetCurrentThreadId() == memframe::agent::g_start_thread.load(std::memory_order_relaxed))
      memframe::agent::t_thread_state = memframe::agent::ThreadState::kAgent;  // to its end
  }
  return TRUE;
}
