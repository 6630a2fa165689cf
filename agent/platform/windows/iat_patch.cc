#include "platform/windows/iat_patch.h"

#include <psapi.h>

#include <cstdint>

#include "capture/recursion_guard.h"

namespace memframe::agent {

namespace {
SRWLOCK g_patch_lock = SRWLOCK_INIT;

HMODULE SelfModule() {
  HMODULE self = nullptr;
  GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                     reinterpret_cast<LPCWSTR>(&PatchLoadedModules), &self);
  return self;
}

// Modules whose imports stay as they are: the agent (its own allocations
// are not the game's) and the layers under every heap, whose internal calls
// are no part of the program's (as glibc's own are not on Linux). The C
// runtimes matter most: MinGW's thread-local variables are emulated, and
// the first touch of one on a thread calls the CRT's malloc, which calls
// HeapAlloc; were the CRT's HeapAlloc hooked, a hook's own TLS access would
// recurse into itself.
bool Skipped(HMODULE module) {
  static const wchar_t* const kSystem[] = {L"ntdll.dll", L"kernel32.dll", L"kernelbase.dll", L"msvcrt.dll",
                                           L"ucrtbase.dll"};
  if (module == SelfModule()) return true;
  for (const wchar_t* name : kSystem)
    if (GetModuleHandleW(name) == module) return true;
  return false;
}

// Fills in the real addresses of hooked exports whose DLL is now loaded.
// GetModuleHandle never loads anything; forwarded exports (the
// api-ms-win-crt-* sets, kernel32's heap functions) resolve to the final
// function, which is what import slots hold.
void ResolveExports(const ImportHook* hooks, int count) {
  for (int i = 0; i < count; ++i) {
    if (hooks[i].real->load(std::memory_order_acquire)) continue;
    HMODULE dll = GetModuleHandleW(hooks[i].module);
    if (!dll) continue;
    FARPROC address = GetProcAddress(dll, hooks[i].function);
    if (address) hooks[i].real->store(reinterpret_cast<void*>(address), std::memory_order_release);
  }
}

void* HookFor(const ImportHook* hooks, int count, void* address) {
  if (!address) return nullptr;
  for (int i = 0; i < count; ++i)
    if (hooks[i].real->load(std::memory_order_relaxed) == address) return hooks[i].hook;
  return nullptr;
}


void PatchModule(HMODULE module, const ImportHook* hooks, int count) {
  auto* base = reinterpret_cast<uint8_t*>(module);
  auto* dos = reinterpret_cast<IMAGE_DOS_HEADER*>(base);
  if (dos->e_magic != IMAGE_DOS_SIGNATURE) return;
  auto* nt = reinterpret_cast<IMAGE_NT_HEADERS*>(base + dos->e_lfanew);
  if (nt->Signature != IMAGE_NT_SIGNATURE || nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC) return;
  const IMAGE_DATA_DIRECTORY& dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
  if (!dir.VirtualAddress || !dir.Size) return;
  for (auto* d = reinterpret_cast<IMAGE_IMPORT_DESCRIPTOR*>(base + dir.VirtualAddress); d->Name; ++d) {
    if (!d->FirstThunk) continue;
    // By address, not by name: also catches imports by ordinal and through
    // the forwarding API sets.
    for (auto** slot = reinterpret_cast<void**>(base + d->FirstThunk); *slot; ++slot) {
      if (void* hook = HookFor(hooks, count, *slot)) WriteSlot(slot, hook);
    }
  }
}
}  // namespace

void WriteSlot(void** slot, void* value) {
  DWORD old = 0;
  if (!VirtualProtect(slot, sizeof(void*), PAGE_READWRITE, &old)) return;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  VirtualProtect(slot, sizeof(void*), old, &old);
}

void PatchLoadedModules() {
  RecursionGuard guard;  // the module list and VirtualProtect are the agent's work
  AcquireSRWLockExclusive(&g_patch_lock);
  int count = 0;
  const ImportHook* hooks = ImportHooks(&count);
  ResolveExports(hooks, count);
  HMODULE modules[1024];
  DWORD needed = 0;
  if (K32EnumProcessModules(GetCurrentProcess(), modules, sizeof(modules), &needed)) {
    DWORD n = needed / sizeof(HMODULE);
    if (n > 1024) n = 1024;
    for (DWORD i = 0; i < n; ++i)
      if (!Skipped(modules[i])) PatchModule(modules[i], hooks, count);
  }
  ReleaseSRWLockExclusive(&g_patch_lock);
}

FARPROC HookedProcAddress(FARPROC real) {
  int count = 0;
  const ImportHook* hooks = ImportHooks(&count);
  void* hook = HookFor(hooks, count, reinterpret_cast<void*>(real));
  return hook ? reinterpret_cast<FARPROC>(hook) : real;
}

}  // namespace memframe::agent
