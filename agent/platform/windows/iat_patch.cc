#include "platform/windows/iat_patch.h"

#include <psapi.h>

#include <cstdint>

#include "capture/recursion_guard.h"

namespace memframe::agent {

namespace {
// Taken after the loader lock, never before: OnDllLoaded runs under the
// loader lock and takes it, and under it GetModuleHandle and GetProcAddress
// (which take the loader lock, under Wine at least) are called. Whoever
// patches outside a DLL notification holds the loader lock first
// (LoaderLockHeld); the other order deadlocked an attach whose start
// patched while another thread loaded a DLL (memframe.exe detach's
// dbghelp.dll), and every remote thread after it waited for the loader.
SRWLOCK g_patch_lock = SRWLOCK_INIT;

// ntdll's LdrLockLoaderLock and LdrUnlockLoaderLock, which no SDK header of
// MinGW's declares: the loader lock held for a scope, re-entrantly (under a
// DllMain, the run's start, it is held already). Looked up here, before it
// is held: the look-up takes it too.
class LoaderLockHeld {
 public:
  LoaderLockHeld() {
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    auto lock = reinterpret_cast<LockFn>(reinterpret_cast<void*>(GetProcAddress(ntdll, "LdrLockLoaderLock")));
    unlock_ = reinterpret_cast<UnlockFn>(reinterpret_cast<void*>(GetProcAddress(ntdll, "LdrUnlockLoaderLock")));
    if (!lock || !unlock_ || lock(0, nullptr, &cookie_) != 0) unlock_ = nullptr;
  }
  ~LoaderLockHeld() {
    if (unlock_) unlock_(0, cookie_);
  }
  LoaderLockHeld(const LoaderLockHeld&) = delete;
  LoaderLockHeld& operator=(const LoaderLockHeld&) = delete;

 private:
  using LockFn = LONG(NTAPI*)(ULONG flags, ULONG* disposition, ULONG_PTR* cookie);
  using UnlockFn = LONG(NTAPI*)(ULONG flags, ULONG_PTR cookie);
  ULONG_PTR cookie_ = 0;
  UnlockFn unlock_ = nullptr;
};

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

// Since Windows 7, kernel32's functions are also exported by kernelbase,
// which holds their code, and the api-ms-win-core-* sets that Windows' own
// DLLs and programs linked against the API-set import libraries name
// resolve there (or, through kernelbase's forwarders, on to ntdll: its
// HeapFree is RtlFreeHeap). Such an import slot holds kernelbase's (or
// ntdll's) address, not kernel32's: a slot is patched when it holds the
// final address of the hooked export of any DLL that exports it. The hook
// calls kernel32's, which does the same.
const wchar_t* const kAlsoExportedBy[][2] = {{L"kernel32.dll", L"kernelbase.dll"}};

// Every address a hooked function is reached by: its own DLL's export and
// the others' (kAlsoExportedBy), forwarders followed. Appended under
// g_patch_lock, read without it: `count` is published after its entries.
struct Target {
  void* address;
  void* hook;
};
constexpr int kMaxTargets = 512;
Target g_targets[kMaxTargets];
std::atomic<int> g_target_count{0};
// Per hook, the exporters (bit 0: its own DLL, bit 1 + i: kAlsoExportedBy's
// i-th) already looked up; a DLL loaded later is looked up then.
constexpr int kMaxHooks = 256;
uint8_t g_resolved[kMaxHooks];

void AddTarget(void* address, void* hook) {
  int n = g_target_count.load(std::memory_order_relaxed);
  for (int i = 0; i < n; ++i)
    if (g_targets[i].address == address) return;
  if (n == kMaxTargets) return;
  g_targets[n] = {address, hook};
  g_target_count.store(n + 1, std::memory_order_release);
}

// The final address of `dll`'s export `function`, or null while `dll` is not
// loaded. GetModuleHandle never loads anything; GetProcAddress follows
// forwarders (the api-ms-win-crt-* sets, kernelbase's heap functions) to the
// function itself, which is what import slots hold.
void* ExportOf(const wchar_t* dll, const char* function) {
  HMODULE module = GetModuleHandleW(dll);
  return module ? reinterpret_cast<void*>(GetProcAddress(module, function)) : nullptr;
}

// Fills in the real addresses of hooked exports whose DLL is now loaded, and
// every address they are also reached by.
void ResolveExports(const ImportHook* hooks, int count) {
  for (int i = 0; i < count && i < kMaxHooks; ++i) {
    if (!(g_resolved[i] & 1)) {
      if (void* address = ExportOf(hooks[i].module, hooks[i].function)) {
        void* unset = nullptr;  // a real one a Vulkan lookup found first stays
        hooks[i].real->compare_exchange_strong(unset, address, std::memory_order_acq_rel);
        AddTarget(address, hooks[i].hook);
        g_resolved[i] |= 1;
      }
    }
    for (size_t a = 0; a < sizeof(kAlsoExportedBy) / sizeof(kAlsoExportedBy[0]); ++a) {
      const uint8_t bit = static_cast<uint8_t>(2u << a);
      if ((g_resolved[i] & bit) || _wcsicmp(hooks[i].module, kAlsoExportedBy[a][0]) != 0) continue;
      if (void* address = ExportOf(kAlsoExportedBy[a][1], hooks[i].function)) {
        AddTarget(address, hooks[i].hook);
        g_resolved[i] |= bit;
      }
    }
  }
}

void* HookFor(void* address) {
  if (!address) return nullptr;
  int n = g_target_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (g_targets[i].address == address) return g_targets[i].hook;
  return nullptr;
}

void PatchModule(HMODULE module) {
  auto* base = reinterpret_cast<uint8_t*>(module);
  auto* dos = reinterpret_cast<IMAGE_DOS_HEADER*>(base);
  if (dos->e_magic != IMAGE_DOS_SIGNATURE) return;
  auto* nt = reinterpret_cast<IMAGE_NT_HEADERS*>(base + dos->e_lfanew);
  if (nt->Signature != IMAGE_NT_SIGNATURE || nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC) return;
  const IMAGE_DATA_DIRECTORY& dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
  if (!dir.VirtualAddress || !dir.Size) return;
  for (auto* d = reinterpret_cast<IMAGE_IMPORT_DESCRIPTOR*>(base + dir.VirtualAddress); d->Name; ++d) {
    if (!d->FirstThunk) continue;
    // By address, not by the DLL the import names: also catches imports by
    // ordinal and through the forwarding API sets.
    for (auto** slot = reinterpret_cast<void**>(base + d->FirstThunk); *slot; ++slot) {
      if (void* hook = HookFor(*slot)) WriteSlot(slot, hook);
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

namespace {
// ntdll's DLL notification, which no SDK header of MinGW's declares.
struct LdrDllNotification {
  ULONG flags;
  const void* full_name;  // UNICODE_STRING*
  const void* base_name;
  void* base;
  ULONG image_size;
};
constexpr ULONG kLdrDllLoaded = 1;
using LdrDllNotificationFn = void(CALLBACK*)(ULONG reason, const LdrDllNotification* data, void* context);
using LdrRegisterDllNotificationFn = LONG(NTAPI*)(ULONG flags, LdrDllNotificationFn callback, void* context,
                                                  void** cookie);

// Under the loader lock, on the thread loading the DLL.
void CALLBACK OnDllLoaded(ULONG reason, const LdrDllNotification* data, void*) {
  if (reason != kLdrDllLoaded || !data || !data->base) return;
  RecursionGuard guard;
  AcquireSRWLockExclusive(&g_patch_lock);
  int count = 0;
  const ImportHook* hooks = ImportHooks(&count);
  ResolveExports(hooks, count);
  auto* module = static_cast<HMODULE>(data->base);
  if (!Skipped(module)) PatchModule(module);
  ReleaseSRWLockExclusive(&g_patch_lock);
}
}  // namespace

void PatchEachLoadedDll() {
  static void* cookie = nullptr;
  auto reg = reinterpret_cast<LdrRegisterDllNotificationFn>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "LdrRegisterDllNotification")));
  if (reg && !cookie) reg(0, OnDllLoaded, nullptr, &cookie);
}

void PatchLoadedModules() {
  RecursionGuard guard;  // the module list and VirtualProtect are the agent's work
  LoaderLockHeld loader;  // before g_patch_lock, as in OnDllLoaded
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
      if (!Skipped(modules[i])) PatchModule(modules[i]);
  }
  ReleaseSRWLockExclusive(&g_patch_lock);
}

FARPROC HookedProcAddress(FARPROC real) {
  void* hook = HookFor(reinterpret_cast<void*>(real));
  return hook ? reinterpret_cast<FARPROC>(hook) : real;
}

}  // namespace memframe::agent
