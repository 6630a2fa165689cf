#include <windows.h>

#include "buffer/thread_os.h"
#include "thread_name_windows.h"

namespace memframe::agent::thread_os {

uint32_t ThisThreadId() { return static_cast<uint32_t>(GetCurrentThreadId()); }
uint32_t ThisProcessId() { return static_cast<uint32_t>(GetCurrentProcessId()); }
void ReadThreadName(uint32_t tid, char* name, size_t size) { ReadWindowsThreadName(tid, name, size); }
void SleepMicros(long us) { Sleep(us < 1000 ? 0 : static_cast<DWORD>(us / 1000)); }

// Windows has no pthread keys for foreign threads: the agent's DllMain
// reports thread exits (DLL_THREAD_DETACH).
void RegisterThreadExit(ThreadBuffer*) {}
void KeepExitingThreadName(ThreadBuffer*) {}

// A thread that cannot be opened is gone; one that can is gone once
// signalled.
bool ThreadGone(uint32_t tid) {
  HANDLE thread = OpenThread(SYNCHRONIZE, FALSE, tid);
  if (!thread) return true;
  bool gone = WaitForSingleObject(thread, 0) == WAIT_OBJECT_0;
  CloseHandle(thread);
  return gone;
}

// No fork: the one process that loaded the agent is the one its writer
// drains, while the writer runs.
Drainer WhoDrains(uint32_t, bool consumer_running) { return consumer_running ? Drainer::kWriter : Drainer::kUnknown; }

}  // namespace memframe::agent::thread_os
