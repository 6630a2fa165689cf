// Loading memframe_agent.dll into a Windows process and starting it: what
// `memframe.exe run` (a game it created suspended) and `memframe.exe attach`
// (a running one) share.
#pragma once

#include <windows.h>

#include <string>

struct MemframeStartOptions;

namespace memframe::windows {

// The Machine field of a PE file (IMAGE_FILE_MACHINE_*); 0 with `why` set
// when the file is missing or not a PE file.
WORD PeMachine(const std::wstring& path, std::wstring* why);

// The base address of the module named like `dll` (by file name) in
// `process`, or null.
HMODULE RemoteModule(HANDLE process, const std::wstring& dll);

// Loads `agent` into `process` with a remote thread calling LoadLibraryW,
// then runs its MemframeStart with `options` (copied into the process; null:
// the agent reads MEMFRAME_TCP). False, with `error` set, when the agent
// could not be loaded; `*recording` says whether MemframeStart succeeded
// (a start that fails leaves the game to run unprofiled, as on Linux).
bool InjectAgent(HANDLE process, const std::wstring& agent, const MemframeStartOptions* options, bool* recording,
                 std::wstring* error);

// Runs the agent's MemframeStop in `process` (memframe.exe detach): false,
// with `error` set, when the process has no agent, it was not recording, or
// the stop did not end within kStopTimeoutMs (then it is not waited for).
inline constexpr DWORD kStopTimeoutMs = 30000;
bool StopAgent(HANDLE process, const std::wstring& agent, std::wstring* error);

}  // namespace memframe::windows
