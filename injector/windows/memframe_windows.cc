// memframe.exe: starts a Windows game with memframe_agent.dll injected.
//
//   memframe.exe run [--agent DLL] [--connect HOST:PORT] -- GAME.exe [ARGS...]
//
// The game is created suspended; a remote thread calls LoadLibraryW on the
// agent, a second one the agent's MemframeStart (which connects to the
// recorder and patches the game's import tables), and only then does the
// game's first thread run, so nothing it allocates is missed. The recorder
// is the Linux `memframe run --tcp`, which sets MEMFRAME_TCP (under Wine);
// --connect names one explicitly. Exits with the game's status.
#include <windows.h>
#include <psapi.h>

#include <cstdio>
#include <cwchar>
#include <string>
#include <vector>

namespace {

constexpr int kExitMemframeError = 125;  // as the Linux memframe run (cli_common.h)

void Fail(const wchar_t* format, const std::wstring& a = L"", const std::wstring& b = L"") {
  fwprintf(stderr, L"memframe: ");
  fwprintf(stderr, format, a.c_str(), b.c_str());
  fwprintf(stderr, L"\n");
}

void PrintUsage() {
  fwprintf(stderr,
           L"usage: memframe.exe run [--agent DLL] [--connect HOST:PORT] -- GAME.exe [ARGS...]\n"
           L"\n"
           L"Runs GAME.exe with memframe_agent.dll injected; the agent streams to the\n"
           L"memframe recorder at HOST:PORT (default: $MEMFRAME_TCP, which the Linux\n"
           L"`memframe run --tcp` sets when it runs this under Wine).\n");
}

std::wstring Directory(const std::wstring& path) {
  size_t slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? L"." : path.substr(0, slash);
}

std::wstring SelfPath() {
  wchar_t buffer[MAX_PATH * 2];
  DWORD n = GetModuleFileNameW(nullptr, buffer, MAX_PATH * 2);
  return std::wstring(buffer, n);
}

std::wstring FullPath(const std::wstring& path) {
  wchar_t buffer[MAX_PATH * 2];
  DWORD n = GetFullPathNameW(path.c_str(), MAX_PATH * 2, buffer, nullptr);
  return n && n < MAX_PATH * 2 ? std::wstring(buffer, n) : path;
}

// The Machine field of a PE file; 0 with `why` set when it is none.
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

std::wstring QuoteArgument(const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\"") == std::wstring::npos) return arg;
  std::wstring quoted = L"\"";
  size_t backslashes = 0;
  for (wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    if (c == L'"') quoted.append(backslashes * 2 + 1, L'\\');
    else quoted.append(backslashes, L'\\');
    backslashes = 0;
    quoted += c;
  }
  quoted.append(backslashes * 2, L'\\');
  return quoted + L"\"";
}

// Runs `start(argument)` in the target and returns the thread's exit code,
// or (DWORD)-1 when the thread could not run.
DWORD RunRemote(HANDLE process, LPTHREAD_START_ROUTINE start, void* argument) {
  HANDLE thread = CreateRemoteThread(process, nullptr, 0, start, argument, 0, nullptr);
  if (!thread) return static_cast<DWORD>(-1);
  DWORD code = static_cast<DWORD>(-1);
  if (WaitForSingleObject(thread, 60000) == WAIT_OBJECT_0) GetExitCodeThread(thread, &code);
  CloseHandle(thread);
  return code;
}

// The agent's base address in the target, by its file name.
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

// Loads the agent into the suspended game and starts it; false (said why)
// when the agent could not be loaded. A start that fails to connect leaves
// the game to run unprofiled, as on Linux.
bool Inject(HANDLE process, const std::wstring& agent) {
  size_t bytes = (agent.size() + 1) * sizeof(wchar_t);
  void* remote_path = VirtualAllocEx(process, nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (!remote_path || !WriteProcessMemory(process, remote_path, agent.c_str(), bytes, nullptr)) {
    Fail(L"cannot write into the game's memory (error %ls)", std::to_wstring(GetLastError()));
    return false;
  }
  // kernel32 sits at the same address in every process of a boot (and of a
  // Wine prefix), so our LoadLibraryW is the game's.
  auto* load_library = reinterpret_cast<LPTHREAD_START_ROUTINE>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "LoadLibraryW")));
  DWORD loaded = RunRemote(process, load_library, remote_path);
  VirtualFreeEx(process, remote_path, 0, MEM_RELEASE);
  HMODULE remote = RemoteModule(process, agent);
  if (loaded == 0 || loaded == static_cast<DWORD>(-1) || !remote) {
    Fail(L"the game could not load the agent %ls", agent);
    return false;
  }
  // MemframeStart's offset, from a copy mapped here without running it.
  HMODULE local = LoadLibraryExW(agent.c_str(), nullptr, DONT_RESOLVE_DLL_REFERENCES);
  FARPROC start = local ? GetProcAddress(local, "MemframeStart") : nullptr;
  if (!start) {
    Fail(L"%ls is not memframe's agent (no MemframeStart)", agent);
    return false;
  }
  auto offset = reinterpret_cast<uintptr_t>(start) - reinterpret_cast<uintptr_t>(local);
  auto* remote_start = reinterpret_cast<LPTHREAD_START_ROUTINE>(reinterpret_cast<uintptr_t>(remote) + offset);
  FreeLibrary(local);
  DWORD started = RunRemote(process, remote_start, nullptr);
  if (started != 0) fwprintf(stderr, L"memframe: the agent is not recording (see above); the game runs on\n");
  return true;
}

int Run(const std::vector<std::wstring>& args) {
  std::wstring agent, connect;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == L"--") {
      ++i;
      break;
    }
    if (args[i] == L"-h" || args[i] == L"--help") {
      PrintUsage();
      return 0;
    }
    if ((args[i] == L"--agent" || args[i] == L"--connect") && i + 1 < args.size()) {
      (args[i] == L"--agent" ? agent : connect) = args[i + 1];
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i][0] == L'-') {
      Fail(L"unknown option %ls", args[i]);
      PrintUsage();
      return kExitMemframeError;
    }
    break;
  }
  if (i >= args.size()) {
    PrintUsage();
    return kExitMemframeError;
  }
  std::wstring game = FullPath(args[i]);
  if (game.size() < 4 || _wcsicmp(game.c_str() + game.size() - 4, L".exe") != 0) game += L".exe";
  std::wstring why;
  WORD machine = PeMachine(game, &why);
  if (machine == 0) {
    Fail(L"%ls: %ls", game, why);
    return kExitMemframeError;
  }
  if (machine != IMAGE_FILE_MACHINE_AMD64) {
    Fail(L"%ls is a %ls program; memframe_agent.dll is for 64-bit (x86-64) programs only", game,
         machine == IMAGE_FILE_MACHINE_I386 ? L"32-bit" : L"non-x86-64");
    return kExitMemframeError;
  }
  agent = FullPath(agent.empty() ? Directory(SelfPath()) + L"\\memframe_agent.dll" : agent);
  if (PeMachine(agent, &why) != IMAGE_FILE_MACHINE_AMD64) {
    Fail(L"agent %ls: %ls (pass --agent DLL)", agent, why.empty() ? L"not a 64-bit DLL" : why);
    return kExitMemframeError;
  }
  if (!connect.empty()) SetEnvironmentVariableW(L"MEMFRAME_TCP", connect.c_str());
  wchar_t tcp[2];
  if (!GetEnvironmentVariableW(L"MEMFRAME_TCP", tcp, 2)) {
    Fail(L"no recorder: pass --connect HOST:PORT, or run this under `memframe run --tcp`");
    return kExitMemframeError;
  }

  std::wstring command_line = QuoteArgument(game);
  for (size_t j = i + 1; j < args.size(); ++j) command_line += L" " + QuoteArgument(args[j]);
  STARTUPINFOW startup{};
  startup.cb = sizeof(startup);
  PROCESS_INFORMATION child{};
  if (!CreateProcessW(game.c_str(), command_line.data(), nullptr, nullptr, TRUE, CREATE_SUSPENDED, nullptr, nullptr,
                      &startup, &child)) {
    Fail(L"cannot start %ls (error %ls)", game, std::to_wstring(GetLastError()));
    return kExitMemframeError;
  }
  if (!Inject(child.hProcess, agent)) {
    TerminateProcess(child.hProcess, kExitMemframeError);
    CloseHandle(child.hThread);
    CloseHandle(child.hProcess);
    return kExitMemframeError;
  }
  ResumeThread(child.hThread);
  WaitForSingleObject(child.hProcess, INFINITE);
  DWORD status = 0;
  GetExitCodeProcess(child.hProcess, &status);
  CloseHandle(child.hThread);
  CloseHandle(child.hProcess);
  return static_cast<int>(status);
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  std::vector<std::wstring> args(argv + 1, argv + argc);
  if (args.empty() || args[0] != L"run") {
    PrintUsage();
    return args.empty() || args[0] == L"-h" || args[0] == L"--help" ? 0 : kExitMemframeError;
  }
  args.erase(args.begin());
  return Run(args);
}
