// Putting memframe_agent.dll first in the import table of a process created
// suspended, so that the loader loads and initialises the agent before any
// DLL the program imports runs its DllMain or global constructors (the way
// Microsoft's Detours starts a DLL in a new process). A remote thread calling
// LoadLibraryW, the way attach works, would come too late: whichever thread
// runs first in a new process initialises it, imports and all.
#pragma once

#include <windows.h>

#include <string>

namespace memframe::windows {

// Rewrites the import directory of `process`'s executable (in its memory,
// not on disk): a copy with `agent` as its first entry, importing
// `function`, in memory allocated after the image (import RVAs are 32-bit).
// False, with `error` set, when the process's image cannot be read or
// written.
bool ImportAgentFirst(HANDLE process, const std::wstring& agent, const char* function, std::wstring* error);

}  // namespace memframe::windows
