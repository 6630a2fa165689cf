#include "inject_windows.h"

#include <psapi.h>

#include <cstdint>
#include <cstring>

#include "platform/windows/windows_agent.h"

namespace memframe::windows {

namespace {

constexpr DWORD kRemoteNotRun = static_cast<DWORD>(-1);
constexpr DWORD kRemoteNoAnswer = static_cast<DWORD>(-2);

// Runs `start(argument)` in the target and returns the thread's exit code,
// kRemoteNotRun when the thread could not be created, or kRemoteNoAnswer
// when it did not end within `timeout_ms` (it is left to run).
DWORD RunRemote(HANDLE process, LPTHREAD_START_ROUTINE start, void* argument, DWORD timeout_ms = 60000) {
  HANDLE thread = CreateRemoteThread(process, nullptr, 0, start, argument, 0, nullptr);
  if (!thread) return kRemoteNotRun;
  DWORD code = kRemoteNoAnswer;
  if (WaitForSingleObject(thread, timeout_ms) == WAIT_OBJECT_0 && !GetExitCodeThread(thread, &code))
    code = kRemoteNotRun;
  CloseHandle(thread);
  return code;
}

// A copy of `bytes` in the target's memory (freed by the caller), or null.
void* CopyInto(HANDLE process, const void* bytes, size_t size) {
  void* remote = VirtualAllocEx(process, nullptr, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (remote && !WriteProcessMemory(process, remote, bytes, size, nullptr)) {
    VirtualFreeEx(process, remote, 0, MEM_RELEASE);
    return nullptr;
  }
  return remote;
}

// The address of the agent's export `name` in the process where the agent
// was loaded at `remote`: its offset, from a copy mapped here without
// running it. Null, with `error` set, when `agent` has no such export.
LPTHREAD_START_ROUTINE RemoteExport(HMODULE remote, const std::wstring& agent, const char* name,
                                    std::wstring* error) {
  HMODULE local = LoadLibraryExW(agent.c_str(), nullptr, DONT_RESOLVE_DLL_REFERENCES);
  FARPROC function = local ? GetProcAddress(local, name) : nullptr;
  if (!function) {
    if (local) FreeLibrary(local);
    *error = agent + L" is not memframe's agent (no " + std::wstring(name, name + strlen(name)) + L")";
    return nullptr;
  }
  auto offset = reinterpret_cast<uintptr_t>(function) - reinterpret_cast<uintptr_t>(local);
  FreeLibrary(local);
  return reinterpret_cast<LPTHREAD_START_ROUTINE>(reinterpret_cast<uintptr_t>(remote) + offset);
}
}  // namespace

WORD PeMachine(const std::wstring& path, std::wstring* why) {
  HANDLE file = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING, 0, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    *why = L"not found";
    return 0;
  }
  IMAGE_DOS_HEADER dos{};
  IMAGE_NT_HEADERS32 nt{};  // Signature and FileHeader lie alike in both layouts
  DWORD read = 0;
  bool ok = ReadFile(file, &dos, sizeof(dos), &read, nullptr) && read == sizeof(dos) &&
            dos.e_magic == IMAGE_DOS_SIGNATURE && SetFilePointer(file, dos.e_lfanew, nullptr, FILE_BEGIN) != INVALID_SET_FILE_POINTER &&
            ReadFile(file, &nt, sizeof(nt), &read, nullptr) && read >= sizeof(DWORD) + sizeof(IMAGE_FILE_HEADER) &&
            nt.Signature == IMAGE_NT_SIGNATURE;
  CloseHandle(file);
  if (!ok) {
    *why = L"not a Windows program (no PE header)";
    return 0;
  }
  return nt.FileHeader.Machine;
}

HMODULE RemoteModule(HANDLE process, const std::wstring& dll) {
  HMODULE modules[1024];
  DWORD needed = 0;
  if (!K32EnumProcessModules(process, modules, sizeof(modules), &needed)) return nullptr;
  std::wstring want = dll.substr(dll.find_last_of(L"\\/") + 1);
  for (DWORD i = 0; i < needed / sizeof(HMODULE) && i < 1024; ++i) {
    wchar_t name[MAX_PATH];
    if (K32GetModuleBaseNameW(process, modules[i], name, MAX_PATH) && _wcsicmp(name, want.c_str()) == 0)
      return modules[i];
  }
  return nullptr;
}

bool InjectAgent(HANDLE process, const std::wstring& agent, const MemframeStartOptions* options, bool* recording,
                 std::wstring* error) {
  *recording = false;
  void* remote_path = CopyInto(process, agent.c_str(), (agent.size() + 1) * sizeof(wchar_t));
  if (!remote_path) {
    *error = L"cannot write into the process's memory (error " + std::to_wstring(GetLastError()) + L")";
    return false;
  }
  // kernel32 sits at the same address in every process of a boot (and of a
  // Wine prefix), so our LoadLibraryW is the target's.
  auto* load_library = reinterpret_cast<LPTHREAD_START_ROUTINE>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "LoadLibraryW")));
  DWORD loaded = RunRemote(process, load_library, remote_path);
  VirtualFreeEx(process, remote_path, 0, MEM_RELEASE);
  HMODULE remote = RemoteModule(process, agent);
  if (loaded == 0 || loaded == kRemoteNotRun || loaded == kRemoteNoAnswer || !remote) {
    *error = L"the process could not load the agent " + agent;
    return false;
  }
  auto* remote_start = RemoteExport(remote, agent, "MemframeStart", error);
  if (!remote_start) return false;
  void* remote_options = options ? CopyInto(process, options, sizeof(*options)) : nullptr;
  if (options && !remote_options) {
    *error = L"cannot write into the process's memory (error " + std::to_wstring(GetLastError()) + L")";
    return false;
  }
  *recording = RunRemote(process, remote_start, remote_options) == 0;
  if (remote_options) VirtualFreeEx(process, remote_options, 0, MEM_RELEASE);
  return true;
}

bool StopAgent(HANDLE process, const std::wstring& agent, std::wstring* error) {
  HMODULE remote = RemoteModule(process, agent);
  if (!remote) {
    *error = L"has no memframe agent (memframe.exe run or attach puts it there)";
    return false;
  }
  auto* stop = RemoteExport(remote, agent, "MemframeStop", error);
  if (!stop) return false;
  DWORD result = RunRemote(process, stop, nullptr, kStopTimeoutMs);
  switch (result) {
    case 0:
      return true;
    case kMemframeStopNotRecording:
      *error = L"is not being recorded (its recording has ended)";
      break;
    case kMemframeStopStarting:
      *error = L"is still starting its recording; try again in a moment";
      break;
    case kRemoteNoAnswer:
      *error = L"did not answer within " + std::to_wstring(kStopTimeoutMs / 1000) +
               L" s: its agent's stop is blocked, and its capture may be incomplete (the game runs on)";
      break;
    case kRemoteNotRun:
      *error = L"could not run the agent's stop (error " + std::to_wstring(GetLastError()) + L")";
      break;
    default:
      *error = L"could not run the agent's stop (it ended with " + std::to_wstring(result) + L")";
      break;
  }
  return false;
}

}  // namespace memframe::windows
