// The functions the Windows agent hooks (by import-table patching,
// iat_patch.h) and their hooks: the C runtimes' heaps, operator new/delete
// of the MinGW and LLVM C++ runtimes, the Win32 heap and ntdll's beneath it,
// virtual memory as regions, and the loader functions through which later modules and lookups
// are caught; the presents that end frames are in present_hooks_windows.cc.
#include <windows.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "hooks/tracked_call.h"
#include "memframe.pb.h"
#include "memframe/format.h"
#include "platform/windows/iat_patch.h"
#include "platform/windows/present_hooks_windows.h"
#include "platform/windows/private_heaps_windows.h"
#include "platform/windows/windows_agent.h"

namespace memframe::agent {

namespace {
using wire::PackKind;
constexpr uint32_t kMalloc = PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kCalloc = PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, wire::kFlagCalloc);
constexpr uint32_t kFree = PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0);
constexpr uint32_t kNew = PackKind(wire::EVENT_ALLOC, wire::FAMILY_NEW, 0);
constexpr uint32_t kNewArray = PackKind(wire::EVENT_ALLOC, wire::FAMILY_NEW_ARRAY, 0);
constexpr uint32_t kDelete = PackKind(wire::EVENT_FREE, wire::FAMILY_NEW, 0);
constexpr uint32_t kDeleteArray = PackKind(wire::EVENT_FREE, wire::FAMILY_NEW_ARRAY, 0);
constexpr uint32_t kMap = PackKind(wire::EVENT_MAP, wire::FAMILY_MMAP, 0);
constexpr uint32_t kUnmap = PackKind(wire::EVENT_UNMAP, wire::FAMILY_MMAP, 0);

template <typename Fn>
Fn Real(std::atomic<void*>& slot) {
  return reinterpret_cast<Fn>(slot.load(std::memory_order_relaxed));
}

// ---- C runtimes: one set of hooks per CRT, each calling its own CRT -------
// A block must go back to the CRT it came from, so msvcrt's malloc and
// ucrtbase's malloc are hooked apart.
enum Crt { kMsvcrt, kUcrt, kCrtCount };
struct CrtReal {
  std::atomic<void*> malloc, calloc, realloc, free, aligned_malloc, aligned_free, exit;
};
CrtReal g_crt[kCrtCount];

template <int C>
void* __cdecl MallocHook(size_t size) {
  return TrackedAlloc(size, kMalloc, [&] { return Real<void*(__cdecl*)(size_t)>(g_crt[C].malloc)(size); });
}
template <int C>
void* __cdecl CallocHook(size_t count, size_t size) {
  size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) total = SIZE_MAX;
  return TrackedAlloc(total, kCalloc,
                      [&] { return Real<void*(__cdecl*)(size_t, size_t)>(g_crt[C].calloc)(count, size); });
}
template <int C>
void* __cdecl ReallocHook(void* old, size_t size) {
  return TrackedRealloc<HookKind::kHeapAlloc>(
      old, size, [&] { return Real<void*(__cdecl*)(void*, size_t)>(g_crt[C].realloc)(old, size); });
}
template <int C>
void __cdecl FreeHook(void* block) {
  if (!block) return Real<void(__cdecl*)(void*)>(g_crt[C].free)(block);
  TrackedFree(block, 0, kFree, [&] { Real<void(__cdecl*)(void*)>(g_crt[C].free)(block); });
}
template <int C>
void* __cdecl AlignedMallocHook(size_t size, size_t alignment) {
  return TrackedAlloc(size, kMalloc,
                      [&] { return Real<void*(__cdecl*)(size_t, size_t)>(g_crt[C].aligned_malloc)(size, alignment); });
}
template <int C>
void __cdecl AlignedFreeHook(void* block) {
  if (!block) return Real<void(__cdecl*)(void*)>(g_crt[C].aligned_free)(block);
  TrackedFree(block, 0, kFree, [&] { Real<void(__cdecl*)(void*)>(g_crt[C].aligned_free)(block); });
}

// The program's exit through its CRT (main returning, exit()): the stream
// is finished before the CRT's clean-up and ExitProcess kill the writer.
template <int C>
void __cdecl ExitHook(int code) {
  StopWindowsAgent("exit");
  Real<void(__cdecl*)(int)>(g_crt[C].exit)(code);
}

// ---- operator new/delete exported by libstdc++ (MinGW) and libc++ ---------
// Their own calls to malloc/free are nested (kOuter) and not recorded twice.
struct CxxReal {
  std::atomic<void*> op_new, op_new_array, op_delete, op_delete_array, op_delete_sized, op_delete_array_sized,
      op_new_nothrow, op_new_array_nothrow;
};
enum CxxRuntime { kLibstdcxx, kLibcxx, kCxxCount };
CxxReal g_cxx[kCxxCount];

template <typename Call>
void* New(size_t size, uint32_t kind, Call call) {
  return TrackedAlloc<false, HookKind::kHeapAlloc, true>(size, kind, call);
}
template <typename Call>
void Delete(void* block, uint32_t kind, Call call) {
  if (!block) return call();
  TrackedFree<false, HookKind::kHeapFree, true>(block, 0, kind, call);
}

template <int R>
void* NewHook(size_t size) {
  return New(size, kNew, [&] { return Real<void* (*)(size_t)>(g_cxx[R].op_new)(size); });
}
template <int R>
void* NewArrayHook(size_t size) {
  return New(size, kNewArray, [&] { return Real<void* (*)(size_t)>(g_cxx[R].op_new_array)(size); });
}
template <int R>
void* NewNothrowHook(size_t size, const void* tag) {
  return New(size, kNew, [&] { return Real<void* (*)(size_t, const void*)>(g_cxx[R].op_new_nothrow)(size, tag); });
}
template <int R>
void* NewArrayNothrowHook(size_t size, const void* tag) {
  return New(size, kNewArray,
             [&] { return Real<void* (*)(size_t, const void*)>(g_cxx[R].op_new_array_nothrow)(size, tag); });
}
template <int R>
void DeleteHook(void* block) {
  Delete(block, kDelete, [&] { Real<void (*)(void*)>(g_cxx[R].op_delete)(block); });
}
template <int R>
void DeleteArrayHook(void* block) {
  Delete(block, kDeleteArray, [&] { Real<void (*)(void*)>(g_cxx[R].op_delete_array)(block); });
}
template <int R>
void DeleteSizedHook(void* block, size_t size) {
  Delete(block, kDelete, [&] { Real<void (*)(void*, size_t)>(g_cxx[R].op_delete_sized)(block, size); });
}
template <int R>
void DeleteArraySizedHook(void* block, size_t size) {
  Delete(block, kDeleteArray, [&] { Real<void (*)(void*, size_t)>(g_cxx[R].op_delete_array_sized)(block, size); });
}

// ---- The Win32 heap and virtual memory ------------------------------------
// HookKind::kRegion: a call nested in a CRT's malloc (which sits on
// HeapAlloc) passes through, so a block is recorded once, at the level the
// program asked for it. A block of a private heap names its heap
// (private_heaps_windows.h).
std::atomic<void*> g_heap_alloc, g_heap_realloc, g_heap_free, g_virtual_alloc, g_virtual_free;

LPVOID WINAPI HeapAllocHook(HANDLE heap, DWORD flags, SIZE_T size) {
  return TrackedAlloc<false, HookKind::kRegion>(
      size, flags & HEAP_ZERO_MEMORY ? kCalloc : kMalloc,
      [&] { return Real<LPVOID(WINAPI*)(HANDLE, DWORD, SIZE_T)>(g_heap_alloc)(heap, flags, size); }, {},
      PrivateHeapId(heap));
}
LPVOID WINAPI HeapReAllocHook(HANDLE heap, DWORD flags, LPVOID old, SIZE_T size) {
  return TrackedRealloc<HookKind::kRegion>(
      old, size,
      [&] { return Real<LPVOID(WINAPI*)(HANDLE, DWORD, LPVOID, SIZE_T)>(g_heap_realloc)(heap, flags, old, size); },
      PrivateHeapId(heap));
}
BOOL WINAPI HeapFreeHook(HANDLE heap, DWORD flags, LPVOID block) {
  BOOL ok = FALSE;
  auto call = [&] { ok = Real<BOOL(WINAPI*)(HANDLE, DWORD, LPVOID)>(g_heap_free)(heap, flags, block); };
  if (!block) {
    call();
    return ok;
  }
  TrackedFree<false, HookKind::kRegion>(block, 0, kFree, call);
  return ok;
}

// A private heap is named when it is made (HeapCreate; RtlCreateHeap
// called by name, below: kernelbase's HeapCreate calls it from inside
// kernelbase, whose imports stay as they are, so a heap is named once).
std::atomic<void*> g_heap_create;

HANDLE WINAPI HeapCreateHook(DWORD options, SIZE_T initial, SIZE_T maximum) {
  HANDLE heap = Real<HANDLE(WINAPI*)(DWORD, SIZE_T, SIZE_T)>(g_heap_create)(options, initial, maximum);
  NamePrivateHeap(heap, __builtin_frame_address(0));
  return heap;
}

// A private heap destroyed whole frees every block it holds: each busy
// block is recorded as freed before the heap goes (and its addresses with
// it), then the heap's end. HeapWalk takes the heap's own lock, as
// HeapDestroy itself does: a heap being destroyed is in no other thread's
// hands, and it allocates nothing. The process heap cannot be destroyed.
std::atomic<void*> g_heap_destroy;

void RecordHeapBlocksFreed(HANDLE heap) {
  PROCESS_HEAP_ENTRY entry{};
  while (HeapWalk(heap, &entry)) {
    if (entry.wFlags & PROCESS_HEAP_ENTRY_BUSY)
      TrackedFree<false, HookKind::kRegion>(entry.lpData, 0, kFree, [] {});
  }
}
void RecordHeapDestroyed(HANDLE heap) {
  if (!heap || heap == GetProcessHeap()) return;
  if (Recording()) RecordHeapBlocksFreed(heap);
  PrivateHeapDestroyed(heap);
}
BOOL WINAPI HeapDestroyHook(HANDLE heap) {
  RecordHeapDestroyed(heap);
  return Real<BOOL(WINAPI*)(HANDLE)>(g_heap_destroy)(heap);
}

// Only new reservations are regions; committing pages of one is not.
LPVOID WINAPI VirtualAllocHook(LPVOID address, SIZE_T size, DWORD type, DWORD protect) {
  auto call = [&] {
    return Real<LPVOID(WINAPI*)(LPVOID, SIZE_T, DWORD, DWORD)>(g_virtual_alloc)(address, size, type, protect);
  };
  if (!(type & MEM_RESERVE)) return call();
  return TrackedAlloc<true, HookKind::kRegion>(size, kMap, call);
}
// A release frees the whole reservation: its size is what VirtualQuery
// finds from the base up, before the call.
SIZE_T ReservationSize(LPVOID base) {
  SIZE_T total = 0;
  MEMORY_BASIC_INFORMATION info;
  auto* p = static_cast<char*>(base);
  while (VirtualQuery(p + total, &info, sizeof(info)) == sizeof(info) && info.AllocationBase == base &&
         info.State != MEM_FREE)
    total += info.RegionSize;
  return total;
}
BOOL WINAPI VirtualFreeHook(LPVOID address, SIZE_T size, DWORD type) {
  BOOL ok = FALSE;
  auto call = [&] { ok = Real<BOOL(WINAPI*)(LPVOID, SIZE_T, DWORD)>(g_virtual_free)(address, size, type); };
  if (!(type & MEM_RELEASE) || !address || !Recording()) {
    call();
    return ok;
  }
  SIZE_T region = ReservationSize(address);
  TrackedFree<true, HookKind::kRegion>(address, region, kUnmap, call);
  return ok;
}

// ---- ntdll's own heap and virtual memory, called by name -------------------
// kernel32's HeapAlloc/HeapReAlloc/HeapFree are ntdll's RtlAllocateHeap/
// RtlReAllocateHeap/RtlFreeHeap beneath (forwarded, on Windows and Wine),
// with the same arguments: imports of those get the Win32 hooks. Their
// RtlCreateHeap, RtlDestroyHeap and the Nt*VirtualMemory system calls are
// hooked apart; kernelbase's HeapCreate, HeapDestroy, VirtualAlloc and
// VirtualFree call them from inside kernelbase, whose imports stay as they
// are, so nothing is recorded twice.
std::atomic<void*> g_rtl_create_heap, g_rtl_destroy_heap, g_nt_allocate_virtual, g_nt_free_virtual;

PVOID NTAPI RtlCreateHeapHook(ULONG flags, PVOID base, SIZE_T reserve, SIZE_T commit, PVOID lock, PVOID parameters) {
  PVOID heap = Real<PVOID(NTAPI*)(ULONG, PVOID, SIZE_T, SIZE_T, PVOID, PVOID)>(g_rtl_create_heap)(
      flags, base, reserve, commit, lock, parameters);
  NamePrivateHeap(heap, __builtin_frame_address(0));
  return heap;
}
PVOID NTAPI RtlDestroyHeapHook(PVOID heap) {
  RecordHeapDestroyed(heap);
  return Real<PVOID(NTAPI*)(PVOID)>(g_rtl_destroy_heap)(heap);
}

// Another process's memory (a debugger's, an injector's) is not this one's.
bool ThisProcess(HANDLE process) {
  return process == GetCurrentProcess() || GetProcessId(process) == GetCurrentProcessId();
}

using NtStatus = LONG;
NtStatus NTAPI NtAllocateVirtualMemoryHook(HANDLE process, PVOID* base, ULONG_PTR zero_bits, PSIZE_T size,
                                           ULONG type, ULONG protect) {
  NtStatus status = 0;
  auto call = [&]() -> void* {
    status = Real<NtStatus(NTAPI*)(HANDLE, PVOID*, ULONG_PTR, PSIZE_T, ULONG, ULONG)>(g_nt_allocate_virtual)(
        process, base, zero_bits, size, type, protect);
    return status >= 0 && base ? *base : nullptr;
  };
  if (!(type & MEM_RESERVE) || !base || !size || !ThisProcess(process)) {
    call();
    return status;
  }
  TrackedAlloc<true, HookKind::kRegion>(*size, kMap, call);
  return status;
}
NtStatus NTAPI NtFreeVirtualMemoryHook(HANDLE process, PVOID* base, PSIZE_T size, ULONG type) {
  NtStatus status = 0;
  auto call = [&] {
    status = Real<NtStatus(NTAPI*)(HANDLE, PVOID*, PSIZE_T, ULONG)>(g_nt_free_virtual)(process, base, size, type);
  };
  if (!(type & MEM_RELEASE) || !base || !*base || !ThisProcess(process) || !Recording()) {
    call();
    return status;
  }
  void* address = *base;
  SIZE_T region = ReservationSize(address);
  TrackedFree<true, HookKind::kRegion>(address, region, kUnmap, call);
  return status;
}

// ---- The loader: later modules and lookups --------------------------------
std::atomic<void*> g_get_proc_address, g_load_library_a, g_load_library_w, g_load_library_ex_a, g_load_library_ex_w,
    g_exit_process;

FARPROC WINAPI GetProcAddressHook(HMODULE module, LPCSTR name) {
  FARPROC real = Real<FARPROC(WINAPI*)(HMODULE, LPCSTR)>(g_get_proc_address)(module, name);
  return HookedProcAddress(real);
}
// A module loaded now gets its import slots patched before LoadLibrary
// returns to the game.
HMODULE AfterLoad(HMODULE module) {
  if (module) PatchLoadedModules();
  return module;
}
HMODULE WINAPI LoadLibraryAHook(LPCSTR name) {
  return AfterLoad(Real<HMODULE(WINAPI*)(LPCSTR)>(g_load_library_a)(name));
}
HMODULE WINAPI LoadLibraryWHook(LPCWSTR name) {
  return AfterLoad(Real<HMODULE(WINAPI*)(LPCWSTR)>(g_load_library_w)(name));
}
HMODULE WINAPI LoadLibraryExAHook(LPCSTR name, HANDLE file, DWORD flags) {
  return AfterLoad(Real<HMODULE(WINAPI*)(LPCSTR, HANDLE, DWORD)>(g_load_library_ex_a)(name, file, flags));
}
HMODULE WINAPI LoadLibraryExWHook(LPCWSTR name, HANDLE file, DWORD flags) {
  return AfterLoad(Real<HMODULE(WINAPI*)(LPCWSTR, HANDLE, DWORD)>(g_load_library_ex_w)(name, file, flags));
}
// Other threads are killed inside ExitProcess, the writer among them: the
// stream is finished first.
void WINAPI ExitProcessHook(UINT code) {
  StopWindowsAgent("exit");
  Real<void(WINAPI*)(UINT)>(g_exit_process)(code);
}

#define CRT_HOOKS(dll, C)                                                         \
  {dll, "malloc", reinterpret_cast<void*>(MallocHook<C>), &g_crt[C].malloc},    \
  {dll, "calloc", reinterpret_cast<void*>(CallocHook<C>), &g_crt[C].calloc},    \
  {dll, "realloc", reinterpret_cast<void*>(ReallocHook<C>), &g_crt[C].realloc}, \
  {dll, "free", reinterpret_cast<void*>(FreeHook<C>), &g_crt[C].free},          \
  {dll, "_aligned_malloc", reinterpret_cast<void*>(AlignedMallocHook<C>), &g_crt[C].aligned_malloc}, \
  {dll, "_aligned_free", reinterpret_cast<void*>(AlignedFreeHook<C>), &g_crt[C].aligned_free}, \
  {dll, "exit", reinterpret_cast<void*>(ExitHook<C>), &g_crt[C].exit}
// Itanium names with 64-bit size_t (unsigned long long: y).
#define CXX_HOOKS(dll, R)                                                                                   \
  {dll, "_Znwy", reinterpret_cast<void*>(NewHook<R>), &g_cxx[R].op_new},                                  \
  {dll, "_Znay", reinterpret_cast<void*>(NewArrayHook<R>), &g_cxx[R].op_new_array},                       \
  {dll, "_ZnwyRKSt9nothrow_t", reinterpret_cast<void*>(NewNothrowHook<R>), &g_cxx[R].op_new_nothrow},      \
  {dll, "_ZnayRKSt9nothrow_t", reinterpret_cast<void*>(NewArrayNothrowHook<R>), &g_cxx[R].op_new_array_nothrow}, \
  {dll, "_ZdlPv", reinterpret_cast<void*>(DeleteHook<R>), &g_cxx[R].op_delete},                           \
  {dll, "_ZdaPv", reinterpret_cast<void*>(DeleteArrayHook<R>), &g_cxx[R].op_delete_array},                \
  {dll, "_ZdlPvy", reinterpret_cast<void*>(DeleteSizedHook<R>), &g_cxx[R].op_delete_sized},               \
  {dll, "_ZdaPvy", reinterpret_cast<void*>(DeleteArraySizedHook<R>), &g_cxx[R].op_delete_array_sized}

const ImportHook kHooks[] = {
    CRT_HOOKS(L"msvcrt.dll", kMsvcrt),
    CRT_HOOKS(L"ucrtbase.dll", kUcrt),
    CXX_HOOKS(L"libstdc++-6.dll", kLibstdcxx),
    CXX_HOOKS(L"libc++.dll", kLibcxx),
    {L"kernel32.dll", "HeapAlloc", reinterpret_cast<void*>(HeapAllocHook), &g_heap_alloc},
    {L"kernel32.dll", "HeapReAlloc", reinterpret_cast<void*>(HeapReAllocHook), &g_heap_realloc},
    {L"kernel32.dll", "HeapFree", reinterpret_cast<void*>(HeapFreeHook), &g_heap_free},
    {L"kernel32.dll", "HeapCreate", reinterpret_cast<void*>(HeapCreateHook), &g_heap_create},
    {L"kernel32.dll", "HeapDestroy", reinterpret_cast<void*>(HeapDestroyHook), &g_heap_destroy},
    {L"ntdll.dll", "RtlAllocateHeap", reinterpret_cast<void*>(HeapAllocHook), &g_heap_alloc},
    {L"ntdll.dll", "RtlReAllocateHeap", reinterpret_cast<void*>(HeapReAllocHook), &g_heap_realloc},
    {L"ntdll.dll", "RtlFreeHeap", reinterpret_cast<void*>(HeapFreeHook), &g_heap_free},
    {L"ntdll.dll", "RtlCreateHeap", reinterpret_cast<void*>(RtlCreateHeapHook), &g_rtl_create_heap},
    {L"ntdll.dll", "RtlDestroyHeap", reinterpret_cast<void*>(RtlDestroyHeapHook), &g_rtl_destroy_heap},
    {L"kernel32.dll", "VirtualAlloc", reinterpret_cast<void*>(VirtualAllocHook), &g_virtual_alloc},
    {L"kernel32.dll", "VirtualFree", reinterpret_cast<void*>(VirtualFreeHook), &g_virtual_free},
    {L"ntdll.dll", "NtAllocateVirtualMemory", reinterpret_cast<void*>(NtAllocateVirtualMemoryHook), &g_nt_allocate_virtual},
    {L"ntdll.dll", "NtFreeVirtualMemory", reinterpret_cast<void*>(NtFreeVirtualMemoryHook), &g_nt_free_virtual},
    {L"kernel32.dll", "GetProcAddress", reinterpret_cast<void*>(GetProcAddressHook), &g_get_proc_address},
    {L"kernel32.dll", "LoadLibraryA", reinterpret_cast<void*>(LoadLibraryAHook), &g_load_library_a},
    {L"kernel32.dll", "LoadLibraryW", reinterpret_cast<void*>(LoadLibraryWHook), &g_load_library_w},
    {L"kernel32.dll", "LoadLibraryExA", reinterpret_cast<void*>(LoadLibraryExAHook), &g_load_library_ex_a},
    {L"kernel32.dll", "LoadLibraryExW", reinterpret_cast<void*>(LoadLibraryExWHook), &g_load_library_ex_w},
    {L"kernel32.dll", "ExitProcess", reinterpret_cast<void*>(ExitProcessHook), &g_exit_process},
    MEMFRAME_PRESENT_HOOKS,
};
}  // namespace

const ImportHook* ImportHooks(int* count) {
  *count = static_cast<int>(sizeof(kHooks) / sizeof(kHooks[0]));
  return kHooks;
}

}  // namespace memframe::agent
