// Start and stop of the Windows agent (memframe_agent.dll).
#pragma once

namespace memframe::agent {

// Ends the stream (last drain, EndOfStream) once; `reason` as on Linux.
void StopWindowsAgent(const char* reason);

}  // namespace memframe::agent

// What `memframe.exe attach` writes into the process for MemframeStart: a
// process started without memframe has no MEMFRAME_TCP in its environment.
struct MemframeStartOptions {
  unsigned size;        // sizeof(MemframeStartOptions), checked
  unsigned attached;    // 1: the process ran before the agent came (Hello.attached)
  char recorder[128];   // HOST:PORT, NUL-terminated
};

// Called by the injector in a thread of its own, after LoadLibraryW of the
// agent: connects to the recorder named by `options` (null: by
// MEMFRAME_TCP, when memframe.exe run started the game suspended), starts
// the writer and patches every module. Returns 0 when recording, 1 when
// passive (the reason was printed).
extern "C" __declspec(dllexport) unsigned long __stdcall MemframeStart(void* options);

// Called by `memframe.exe detach` in a thread of its own: ends the recording
// as on Linux (EndOfStream "detach"); the hooks stay in the import tables
// and pass every call through. Then sets the event kMemframeDetachedEvent
// followed by the process id, on which `memframe.exe run` and `attach` wait
// beside the game, so that they end and the recorder closes the capture.
// Returns 0 when it ended a recording, kMemframeStopNotRecording when there
// was none, kMemframeStopStarting while MemframeStart has not finished (try
// again). It takes no lock a game thread holds for long: it runs outside
// the loader lock, and dbghelp.dll's loading takes the loader lock before
// the agent's patch lock, as every DLL's loading does (iat_patch.cc).
extern "C" __declspec(dllexport) unsigned long __stdcall MemframeStop(void* unused);
inline constexpr unsigned long kMemframeStopNotRecording = 1;
inline constexpr unsigned long kMemframeStopStarting = 2;
inline constexpr wchar_t kMemframeDetachedEvent[] = L"memframe-detached-";
