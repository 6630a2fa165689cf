// Start and stop of the Windows agent (memframe_agent.dll).
#pragma once

namespace memframe::agent {

// Ends the stream (last drain, EndOfStream) once; `reason` as on Linux.
void StopWindowsAgent(const char* reason);

}  // namespace memframe::agent

// Called by the injector in a thread of its own, after LoadLibraryW of the
// agent and before the game's first thread runs: connects to the recorder
// named by MEMFRAME_TCP, starts the writer and patches every module. Returns
// 0 when recording, 1 when passive (the reason was printed).
extern "C" __declspec(dllexport) unsigned long __stdcall MemframeStart(void*);
