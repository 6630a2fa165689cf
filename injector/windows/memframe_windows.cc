// memframe.exe: profiles a Windows game with memframe_agent.dll injected.
//
//   memframe.exe run [--agent DLL] [--connect HOST:PORT] -- GAME.exe [ARGS...]
//   memframe.exe attach [--agent DLL] [--connect HOST:PORT] PID|NAME.exe
//   memframe.exe detach [--agent DLL] PID|NAME.exe
//
// run: the game is created suspended, with the agent put first in its import
// table (import_table_windows.h), so that the agent's DllMain starts
// recording (connects to the recorder, patches the import tables) before any
// DLL the game imports is initialised; a remote thread calling LoadLibraryW
// on the agent initialises the process, a second one asks MemframeStart
// whether it records, and only then does the game's first thread run, so
// nothing it allocates is missed.
// attach: the same two remote threads in a game that is already running;
// the recording starts there (blocks allocated before are not seen).
// The recorder is the Linux `memframe run --tcp`, which sets MEMFRAME_TCP
// (under Wine); --connect names one explicitly. Both wait for the game to
// end and exit with its status, or for a detach.
// detach: the agent's MemframeStop, in a remote thread, ends the recording
// (the game runs on); the run or attach waiting on the game then ends too.
#include <windows.h>
#include <tlhelp32.h>

#include <cstdio>
#include <cstring>
#include <cwchar>
#include <string>
#include <vector>

#include "import_table_windows.h"
#include "inject_windows.h"
#include "platform/windows/present_names_windows.h"
#include "platform/windows/windows_agent.h"

namespace {

using memframe::windows::ImportAgentFirst;
using memframe::windows::InjectAgent;
using memframe::windows::PeMachine;
using memframe::windows::RemoteModule;
using memframe::agent::WindowsPresentNamed;

constexpr int kExitMemframeError = 125;  // as the Linux memframe run (cli_common.h)

void Fail(const wchar_t* format, const std::wstring& a = L"", const std::wstring& b = L"") {
  fwprintf(stderr, L"memframe: ");
  fwprintf(stderr, format, a.c_str(), b.c_str());
  fwprintf(stderr, L"\n");
}

void PrintUsage() {
  fwprintf(stderr,
           L"usage: memframe.exe run [--agent DLL] [--connect HOST:PORT] -- GAME.exe [ARGS...]\n"
           L"       memframe.exe attach [--agent DLL] [--connect HOST:PORT] PID|NAME.exe\n"
           L"       memframe.exe detach [--agent DLL] PID|NAME.exe\n"
           L"\n"
           L"run: runs GAME.exe with memframe_agent.dll injected. attach: injects it into a\n"
           L"running 64-bit process, by id or by executable name; the recording starts\n"
           L"there. The agent streams to the memframe recorder at HOST:PORT (default:\n"
           L"$MEMFRAME_TCP, which the Linux `memframe run --tcp` sets when it runs this\n"
           L"under Wine). Both wait for the game to end and exit with its status, or\n"
           L"for a detach (then 0). detach: ends the recording of a game that run or\n"
           L"attach records; the game runs on. Child processes are not followed: only\n"
           L"the process run starts (or attach names) is recorded, and run says so\n"
           L"when the game starts one (a launcher): run or attach memframe.exe on the\n"
           L"game itself.\n");
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

// The program CreateProcess would start for `name`: one without a folder is
// looked for as CreateProcess looks (SearchPath: memframe.exe's folder, the
// current one, the system folders, PATH), and ".exe" is added to a name
// without an extension. Empty when there is none.
std::wstring FindProgram(const std::wstring& name) {
  wchar_t buffer[MAX_PATH * 2];
  DWORD n = SearchPathW(nullptr, name.c_str(), L".exe", MAX_PATH * 2, buffer, nullptr);
  return n && n < MAX_PATH * 2 ? std::wstring(buffer, n) : L"";
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

// The options both commands take: --agent, --connect. Returns the index of
// the first other argument, or -1 (said why) for an unknown option; `help`
// is set for -h.
struct CommonOptions {
  std::wstring agent, connect;
  bool help = false;
};
int ParseOptions(const std::vector<std::wstring>& args, CommonOptions* options) {
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == L"--") return static_cast<int>(i + 1);
    if (args[i] == L"-h" || args[i] == L"--help") {
      options->help = true;
      return 0;
    }
    if ((args[i] == L"--agent" || args[i] == L"--connect") && i + 1 < args.size()) {
      (args[i] == L"--agent" ? options->agent : options->connect) = args[i + 1];
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i][0] == L'-') {
      Fail(L"unknown option %ls", args[i]);
      PrintUsage();
      return -1;
    }
    break;
  }
  return static_cast<int>(i);
}

// The agent DLL (default: beside memframe.exe), checked; empty when unusable.
std::wstring CheckedAgent(const std::wstring& given) {
  std::wstring agent = FullPath(given.empty() ? Directory(SelfPath()) + L"\\memframe_agent.dll" : given);
  std::wstring why;
  if (PeMachine(agent, &why) != IMAGE_FILE_MACHINE_AMD64) {
    Fail(L"agent %ls: %ls (pass --agent DLL)", agent, why.empty() ? L"not a 64-bit DLL" : why);
    return L"";
  }
  return agent;
}

// The recorder's HOST:PORT: --connect, else $MEMFRAME_TCP; empty (said why)
// when neither.
std::string RecorderAddress(const std::wstring& connect) {
  if (!connect.empty()) SetEnvironmentVariableW(L"MEMFRAME_TCP", connect.c_str());
  wchar_t tcp[128];
  DWORD n = GetEnvironmentVariableW(L"MEMFRAME_TCP", tcp, 128);
  if (n == 0 || n >= 128) {
    Fail(L"no recorder: pass --connect HOST:PORT, or run this under `memframe run --tcp`");
    return "";
  }
  char narrow[128];
  int bytes = WideCharToMultiByte(CP_UTF8, 0, tcp, -1, narrow, sizeof(narrow), nullptr, nullptr);
  return bytes > 1 ? std::string(narrow) : "";
}

// The recorder's --frame-source (MEMFRAME_FRAME_SOURCE, which it sets and
// Wine passes on): auto, slices or a Windows present; false (said why) for
// anything else, such as a Linux present, which would never end a frame.
bool CheckFrameSource() {
  char source[128];
  DWORD n = GetEnvironmentVariableA("MEMFRAME_FRAME_SOURCE", source, sizeof(source));
  if (n == 0 || (n < sizeof(source) && (strcmp(source, "auto") == 0 || strcmp(source, "slices") == 0 ||
                                        WindowsPresentNamed(source) != memframe::agent::kPresentApiCount)))
    return true;
  std::wstring names;
  for (const char* name : memframe::agent::kWindowsPresentNames) names += L", " + std::wstring(name, name + strlen(name));
  Fail(L"--frame-source %ls is no Windows present: a Windows game takes auto, slices%ls",
       n < sizeof(source) ? std::wstring(source, source + n) : L"(too long)", names);
  return false;
}

// The event MemframeStop sets in process `id` (windows_agent.h), created
// before the agent can start; null if it cannot be.
HANDLE DetachedEvent(DWORD id) {
  std::wstring name = kMemframeDetachedEvent + std::to_wstring(id);
  return CreateEventW(nullptr, TRUE, FALSE, name.c_str());
}

// The processes the game started, for one note: memframe.exe records only
// the process it starts, and a launcher's game would otherwise run
// unrecorded without a word. A job's completion port tells of each process
// that joins it, and a process's children join their parent's job: no hook.
// Breaking away stays allowed, as without memframe (such a child is not told).
struct ChildWatch {
  HANDLE job = nullptr, port = nullptr;
  DWORD game = 0;
  bool told = false;
};

// Puts the suspended game in a job of its own; without one (a failure),
// nothing is told.
void WatchChildren(HANDLE process, DWORD id, ChildWatch* watch) {
  watch->game = id;
  watch->job = CreateJobObjectW(nullptr, nullptr);
  watch->port = watch->job ? CreateIoCompletionPort(INVALID_HANDLE_VALUE, nullptr, 0, 1) : nullptr;
  JOBOBJECT_ASSOCIATE_COMPLETION_PORT port{};
  port.CompletionKey = watch->job;
  port.CompletionPort = watch->port;
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_BREAKAWAY_OK;
  if (watch->port &&
      SetInformationJobObject(watch->job, JobObjectAssociateCompletionPortInformation, &port, sizeof(port)) &&
      SetInformationJobObject(watch->job, JobObjectExtendedLimitInformation, &limits, sizeof(limits)) &&
      AssignProcessToJobObject(watch->job, process))
    return;
  if (watch->port) CloseHandle(watch->port);
  if (watch->job) CloseHandle(watch->job);
  watch->job = watch->port = nullptr;
}

// Says once that a process other than the game joined its job.
void NoteChildren(ChildWatch* watch) {
  DWORD message = 0;
  ULONG_PTR key = 0;
  LPOVERLAPPED value = nullptr;
  while (watch->port && GetQueuedCompletionStatus(watch->port, &message, &key, &value, 0)) {
    auto id = static_cast<DWORD>(reinterpret_cast<ULONG_PTR>(value));
    if (message != JOB_OBJECT_MSG_NEW_PROCESS || id == watch->game || watch->told) continue;
    watch->told = true;
    wchar_t name[MAX_PATH] = L"?";
    DWORD size = MAX_PATH;
    if (HANDLE child = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, id)) {
      if (!QueryFullProcessImageNameW(child, 0, name, &size)) wcscpy(name, L"?");
      CloseHandle(child);
    }
    fwprintf(stderr,
             L"memframe: the game started process %lu (%ls), which is not recorded: memframe.exe follows no "
             L"child processes (attach to it, or run it directly)\n",
             static_cast<unsigned long>(id), name);
  }
}

void CloseChildWatch(ChildWatch* watch) {
  if (watch->port) CloseHandle(watch->port);
  if (watch->job) CloseHandle(watch->job);  // no kill-on-close: the processes run on
}

// Waits for the game to end, or for a detach (`detached`, may be null);
// the game's exit status, or 0 after a detach. Meanwhile tells of the
// game's children (`children`, may be null).
int WaitForExit(HANDLE process, HANDLE detached, ChildWatch* children = nullptr) {
  HANDLE handles[2] = {process, detached};
  const bool watching = children && children->port;
  DWORD which = WAIT_TIMEOUT;
  while (which == WAIT_TIMEOUT) {
    which = WaitForMultipleObjects(detached ? 2 : 1, handles, FALSE, watching ? 250 : INFINITE);
    if (watching) NoteChildren(children);
  }
  if (detached) CloseHandle(detached);
  if (which == WAIT_OBJECT_0 + 1) {
    fwprintf(stderr, L"memframe: detached from process %lu; it runs on\n", GetProcessId(process));
    return 0;
  }
  DWORD status = 0;
  GetExitCodeProcess(process, &status);
  return static_cast<int>(status);
}

// `args`: the game and its arguments.
int Run(const CommonOptions& options, const std::vector<std::wstring>& args) {
  if (args.empty()) {
    PrintUsage();
    return kExitMemframeError;
  }
  std::wstring game = FindProgram(args[0]);
  if (game.empty()) {
    Fail(L"%ls: not found%ls", args[0],
         args[0].find_first_of(L"\\/") == std::wstring::npos ? L" (in memframe.exe's folder, the current one, the "
                                                                L"system folders or PATH)" : L"");
    return kExitMemframeError;
  }
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
  std::wstring agent = CheckedAgent(options.agent);
  if (agent.empty() || RecorderAddress(options.connect).empty() || !CheckFrameSource()) return kExitMemframeError;

  std::wstring command_line = QuoteArgument(game);
  for (size_t j = 1; j < args.size(); ++j) command_line += L" " + QuoteArgument(args[j]);
  STARTUPINFOW startup{};
  startup.cb = sizeof(startup);
  PROCESS_INFORMATION child{};
  if (!CreateProcessW(game.c_str(), command_line.data(), nullptr, nullptr, TRUE, CREATE_SUSPENDED, nullptr, nullptr,
                      &startup, &child)) {
    Fail(L"cannot start %ls (error %ls)", game, std::to_wstring(GetLastError()));
    return kExitMemframeError;
  }
  HANDLE detached = DetachedEvent(child.dwProcessId);
  ChildWatch children;
  WatchChildren(child.hProcess, child.dwProcessId, &children);
  bool recording = false;
  std::wstring error;
  if (!ImportAgentFirst(child.hProcess, agent, "MemframeStart", &error) ||
      !InjectAgent(child.hProcess, agent, nullptr, &recording, &error)) {
    Fail(L"%ls", error);
    TerminateProcess(child.hProcess, kExitMemframeError);
    if (detached) CloseHandle(detached);
    CloseChildWatch(&children);
    CloseHandle(child.hThread);
    CloseHandle(child.hProcess);
    return kExitMemframeError;
  }
  if (!recording) fwprintf(stderr, L"memframe: the agent is not recording (see above); the game runs on\n");
  ResumeThread(child.hThread);
  int status = WaitForExit(child.hProcess, detached, &children);
  CloseChildWatch(&children);
  CloseHandle(child.hThread);
  CloseHandle(child.hProcess);
  return status;
}

// The id of the process named by `target`: a decimal id, or an executable's
// file name (case aside) that exactly one running process has.
DWORD FindProcess(const std::wstring& target) {
  wchar_t* end = nullptr;
  unsigned long id = wcstoul(target.c_str(), &end, 10);
  if (!target.empty() && *end == L'\0') return static_cast<DWORD>(id);
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return 0;
  std::vector<DWORD> found;
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof(entry);
  for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry)) {
    if (_wcsicmp(entry.szExeFile, target.c_str()) == 0 && entry.th32ProcessID != GetCurrentProcessId())
      found.push_back(entry.th32ProcessID);
  }
  CloseHandle(snapshot);
  if (found.size() == 1) return found[0];
  if (found.empty()) {
    Fail(L"no running process is named %ls", target);
  } else {
    std::wstring ids;
    for (DWORD f : found) ids += L" " + std::to_wstring(f);
    Fail(L"several processes are named %ls (ids%ls): pass one id", target, ids);
  }
  return 0;
}

// `args`: the process's id or name.
int Attach(const CommonOptions& options, const std::vector<std::wstring>& args) {
  if (args.size() != 1) {
    PrintUsage();
    return kExitMemframeError;
  }
  const std::wstring& target = args[0];
  std::wstring agent = CheckedAgent(options.agent);
  std::string recorder = RecorderAddress(options.connect);
  if (agent.empty() || recorder.empty()) return kExitMemframeError;
  DWORD id = FindProcess(target);
  if (id == 0) return kExitMemframeError;
  HANDLE process = OpenProcess(PROCESS_CREATE_THREAD | PROCESS_QUERY_INFORMATION | PROCESS_VM_OPERATION |
                                   PROCESS_VM_WRITE | PROCESS_VM_READ | SYNCHRONIZE,
                               FALSE, id);
  if (!process) {
    Fail(L"cannot open process %ls (error %ls)", std::to_wstring(id), std::to_wstring(GetLastError()));
    return kExitMemframeError;
  }
  struct Closer {
    HANDLE h;
    ~Closer() { CloseHandle(h); }
  } closer{process};
  BOOL wow64 = FALSE;
  if (IsWow64Process(process, &wow64) && wow64) {
    Fail(L"process %ls is a 32-bit program; memframe_agent.dll is for 64-bit (x86-64) programs only",
         std::to_wstring(id));
    return kExitMemframeError;
  }
  if (RemoteModule(process, agent)) {
    Fail(L"process %ls already has memframe's agent (a recording is or was under way)", std::to_wstring(id));
    return kExitMemframeError;
  }
  MemframeStartOptions start{};
  start.size = sizeof(start);
  start.attached = 1;
  if (recorder.size() >= sizeof(start.recorder)) {
    Fail(L"recorder address too long");
    return kExitMemframeError;
  }
  memcpy(start.recorder, recorder.c_str(), recorder.size() + 1);
  HANDLE detached = DetachedEvent(id);
  bool recording = false;
  std::wstring error;
  if (!InjectAgent(process, agent, &start, &recording, &error)) {
    Fail(L"%ls", error);
    if (detached) CloseHandle(detached);
    return kExitMemframeError;
  }
  if (!recording) {
    Fail(L"the agent in process %ls could not start recording (its stderr says why)", std::to_wstring(id));
    if (detached) CloseHandle(detached);
    return kExitMemframeError;
  }
  fwprintf(stderr, L"memframe: attached to process %lu; recording until it ends\n", static_cast<unsigned long>(id));
  return WaitForExit(process, detached);
}

// `args`: the process's id or name.
int Detach(const CommonOptions& options, const std::vector<std::wstring>& args) {
  if (args.size() != 1) {
    PrintUsage();
    return kExitMemframeError;
  }
  std::wstring agent = CheckedAgent(options.agent);
  if (agent.empty()) return kExitMemframeError;
  DWORD id = FindProcess(args[0]);
  if (id == 0) return kExitMemframeError;
  HANDLE process = OpenProcess(PROCESS_CREATE_THREAD | PROCESS_QUERY_INFORMATION | PROCESS_VM_OPERATION |
                                   PROCESS_VM_WRITE | PROCESS_VM_READ | SYNCHRONIZE,
                               FALSE, id);
  if (!process) {
    Fail(L"cannot open process %ls (error %ls)", std::to_wstring(id), std::to_wstring(GetLastError()));
    return kExitMemframeError;
  }
  std::wstring error;
  bool stopped = memframe::windows::StopAgent(process, agent, &error);
  CloseHandle(process);
  if (!stopped) {
    Fail(L"process %ls %ls", std::to_wstring(id), error);
    return kExitMemframeError;
  }
  fwprintf(stderr, L"memframe: detached from process %lu; the capture is complete and the game runs on\n",
           static_cast<unsigned long>(id));
  return 0;
}

}  // namespace

int wmain(int argc, wchar_t** argv) {
  std::vector<std::wstring> args(argv + 1, argv + argc);
  if (args.empty() || (args[0] != L"run" && args[0] != L"attach" && args[0] != L"detach")) {
    PrintUsage();
    return args.empty() || args[0] == L"-h" || args[0] == L"--help" ? 0 : kExitMemframeError;
  }
  std::wstring command = args[0];
  args.erase(args.begin());
  CommonOptions options;
  int first = ParseOptions(args, &options);
  if (options.help) {
    PrintUsage();
    return 0;
  }
  if (first < 0) return kExitMemframeError;
  std::vector<std::wstring> operands(args.begin() + first, args.end());
  if (command == L"detach") return Detach(options, operands);
  return command == L"run" ? Run(options, operands) : Attach(options, operands);
}
