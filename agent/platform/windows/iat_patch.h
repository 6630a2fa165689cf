// Hooks by import-address-table patching: every module's imports of a hooked
// function are pointed at the agent's hook, which calls the address the
// slot held. Chosen over inline patching (MinHook's way of rewriting each
// function's first instructions): it needs no disassembler, leaves the
// real functions' code untouched (so calls from inside a runtime to itself
// are not seen, as with LD_PRELOAD on Linux), and a missed slot loses
// events but never breaks the game. What it cannot see: calls through
// pointers fetched before the agent loaded, which is why GetProcAddress is
// hooked too, and a statically linked CRT's own allocator.
#pragma once

#include <windows.h>

#include <atomic>

namespace memframe::agent {

struct ImportHook {
  const wchar_t* module;   // the exporting DLL
  const char* function;    // its export
  void* hook;
  std::atomic<void*>* real;  // the export's address, filled in when the DLL is found
};

// The agent's hook table (windows_hooks.cc).
const ImportHook* ImportHooks(int* count);

// Finds the exports of DLLs loaded since the last call and patches the
// import tables of every module but the agent's and the system's own
// (ntdll, kernel32, kernelbase). Serialised; safe to call again.
void PatchLoadedModules();

// Patches each DLL loaded from now on as the loader hands it over, after its
// imports are bound and before its DllMain runs (LdrRegisterDllNotification),
// so that what a late DLL's DllMain allocates is recorded: LoadLibrary's
// hook patches only after the DllMains of the DLL and of its new
// dependencies have run. Call once, after PatchLoadedModules.
void PatchEachLoadedDll();

// Points a function-pointer slot (an import's, a vtable's) at `value`,
// whatever the page's protection.
void WriteSlot(void** slot, void* value);

// GetProcAddress's answer, swapped for the hook when it is a hooked export.
FARPROC HookedProcAddress(FARPROC real);

}  // namespace memframe::agent
