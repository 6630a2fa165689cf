#include "attach_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "attach/agent_drop_dir.h"
#include "attach/entry_patch_requests.h"
#include "attach/leftovers.h"
#include "attach/ptrace_injector.h"
#include "attach/target_process.h"
#include "cli_common.h"
#include "commands.h"
#include "keep_last.h"
#include "kept_window.h"
#include "launch.h"
#include "live_server.h"
#include "memframe/capture_file.h"
#include "memframe/format.h"
#include "memframe/parse_number.h"
#include "memframe/output_file.h"
#include "recorder.h"
#include "run_command.h"

namespace memframe::injector {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kAttachPollMs = 50;
// After the injection the agent's thread connects; a process that never
// does was not given the agent (or it failed there: its stderr says why).
constexpr auto kConnectLimit = std::chrono::seconds(10);
// How long a detached agent may take to send its last events.
constexpr auto kDetachLimit = std::chrono::seconds(6);

std::atomic<int> g_stop_signal{0};
// Also ends any wait on an output that takes no data (a FIFO whose reader
// stalled), which would otherwise hold the recorder, the detach and the game.
void OnStopSignal(int signal) {
  g_stop_signal.store(signal);
  InterruptBlockedWrites();
}

// Ctrl+C, SIGTERM and SIGHUP end the recording (the process runs on); the
// terminal's SIGINT goes to memframe's own process group only, never to
// the process it attached to.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
    signal(SIGPIPE, SIG_IGN);
  }
  ~StopSignals() {
    for (int s : {SIGINT, SIGTERM, SIGHUP}) signal(s, SIG_DFL);
  }
};

bool ParsePid(const std::string& text, pid_t* pid) {
  return ParseInteger<pid_t>(text, pid, 1, 0x3fffffff);  // the kernel's PID_MAX_LIMIT
}

// Where `memframe detach PID` finds the memframe that records PID: a file
// named after PID, holding memframe's own pid, in a directory of this user's.
std::string SessionDir() {
  const char* tmp = getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/memframe-attach-" + std::to_string(geteuid());
}

std::string SessionFile(pid_t pid) { return SessionDir() + "/" + std::to_string(pid); }

// True if `pid` runs (not a zombie) the memframe executable.
bool IsRunningMemframe(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] == 'Z') return false;
  char exe[4096] = {};
  ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof exe - 1);
  std::string name = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "";
  return name.size() >= 9 && name.compare(name.size() - 9, 9, "/memframe") == 0;
}

// When `pid` started (clock ticks after boot, /proc/PID/stat field 22), or
// 0: with the pid, it names one process even after the pid is reused.
unsigned long long StartTime(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return strtoull(field.c_str(), nullptr, 10);
  return 0;
}

// What a session file holds: the recording memframe's pid and start time.
std::string SessionText(pid_t owner) {
  return std::to_string(owner) + " " + std::to_string(StartTime(owner)) + "\n";
}

// The memframe recording `pid` according to its session file, or 0. A file
// its memframe left behind (killed) may name a pid now another memframe's:
// the start time tells them apart.
pid_t SessionOwner(pid_t pid) {
  std::ifstream in(SessionFile(pid));
  long owner = 0;
  unsigned long long started = 0;
  if (!(in >> owner >> started) || owner <= 0 || !IsRunningMemframe(static_cast<pid_t>(owner)) ||
      StartTime(static_cast<pid_t>(owner)) != started)
    return 0;
  return static_cast<pid_t>(owner);
}

bool RegisterSession(pid_t pid, std::string* error) {
  std::string dir = SessionDir();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = "cannot create " + dir + ": " + strerror(errno);
    return false;
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
    *error = dir + " is not a private directory of yours; remove it";
    return false;
  }
  std::string path = SessionFile(pid);
  if (pid_t owner = SessionOwner(pid)) {
    *error = "process " + std::to_string(pid) + " is already being recorded by memframe attach (pid " +
             std::to_string(owner) + ")";
    return false;
  }
  unlink(path.c_str());  // a stale one: its memframe is gone
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    *error = "cannot create " + path + ": " + strerror(errno);
    return false;
  }
  std::string me = SessionText(getpid());
  bool ok = write(fd, me.data(), me.size()) == static_cast<ssize_t>(me.size());
  close(fd);
  return ok || (*error = "cannot write " + path, false);
}

void UnregisterSession(pid_t pid) {
  std::ifstream in(SessionFile(pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text == SessionText(getpid())) unlink(SessionFile(pid).c_str());
}

std::string ProcessCommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw)
    if (c == '\0') c = ' ';
  return raw;
}

std::string ProcessName(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  for (char& c : name)
    if (c == '/' || c == ' ') c = '_';
  return name.empty() ? "process" : name;
}

// The settings the agent reads (the names of its environment variables).
bool WriteAgentSettings(const std::string& path, const std::string& socket, const std::string& ready,
                        const std::string& entries, const RunOptions& options, std::string* error) {
  std::string text = std::string(wire::kSettingAttachReady) + "=" + ready + "\n";
  text += std::string(wire::kSettingAttachEntries) + "=" + entries + "\n";
  RunOptions with_debug = options;
  // The game's environment is not this one: MEMFRAME_DEBUG goes in the file.
  if (const char* debug = getenv(wire::kEnvDebug)) with_debug.agent_settings.debug = strcmp(debug, "1") == 0;
  for (const auto& [name, value] : AgentSettingEntries(with_debug, socket, wire::kAttachSession))
    text += name + "=" + value + "\n";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) close(fd);
  if (!ok) *error = "cannot write " + path + ": " + strerror(errno);
  return ok;
}

// root attaching to another user's process: that user's process must be
// able to read the settings, connect to the socket and write in the drop
// directory. memframe's directory stays root's (0711: entered, never listed
// or changed by that user), so that nothing in it but the drop directory is
// the user's (agent_drop_dir.h), and nobody can swap the directory itself.
void HandOver(const std::string& dir, const std::string& socket_path, const std::string& settings,
              const AgentDropDir& drop, pid_t pid) {
  struct stat st {};
  if (stat(("/proc/" + std::to_string(pid)).c_str(), &st) != 0 || st.st_uid == geteuid()) return;
  bool ok = chmod(dir.c_str(), 0711) == 0;
  for (const std::string& path : {socket_path, settings})
    ok = fchownat(AT_FDCWD, path.c_str(), st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) == 0 && ok;
  if (!drop.HandTo(st.st_uid, st.st_gid) || !ok) std::cerr << "memframe: cannot hand " << dir << " over\n";
}

struct AttachOptions {
  RunOptions run;
  double duration_s = 0;  // 0: until Ctrl+C or memframe detach
  pid_t pid = 0;
};

enum class AttachParse { kAttach, kHelp, kError };

AttachParse ParseAttachArguments(const std::vector<std::string>& args, AttachOptions* options, std::string* error) {
  std::vector<CommandOption> table = RecordingOptions(&options->run);
  table.push_back({"--duration", "S", "", [options](const std::string& value) {
                     double seconds = 0;
                     if (!ParseDouble(value, &seconds) || !(seconds > 0) || seconds > 1e7)
                       return "--duration wants seconds, more than 0, not '" + value + "'";
                     options->duration_s = seconds;
                     return std::string();
                   }});
  // What only a launch can do, named rather than called unknown, with why
  // (the launch-only settings of memframe/agent_settings.h).
  const std::pair<const char*, const char*> run_only[] = {
      {"--follow-fork", "an attach records the one process it was injected into: its detach could not reach a forked "
                        "child, which would keep the patched imports"},
      {"--no-follow-exec", "the programs an attached process execs never have the agent (it was injected, not "
                           "preloaded)"},
      {"--tcp", "it starts a Windows game under Wine"},
  };
  for (const auto& entry : run_only)
    table.push_back({entry.first, "", "", [option = entry.first, why = entry.second](const std::string&) {
                       return std::string(option) + " applies to `memframe run` only: " + why;
                     }});
  std::vector<std::string> positional;
  switch (ParseCommandLine(table, args, &positional, error)) {
    case ParsedCommandLine::kHelp: return AttachParse::kHelp;
    case ParsedCommandLine::kError: return AttachParse::kError;
    case ParsedCommandLine::kOk: break;
  }
  if (positional.empty()) {
    *error = "no process id";
    return AttachParse::kError;
  }
  if (positional.size() != 1 || !ParsePid(positional[0], &options->pid)) {
    *error = "want one process id, not '" + positional.back() + "'";
    return AttachParse::kError;
  }
  return AttachParse::kAttach;
}

bool ProcessAlive(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

// The process once the agent's thread has closed its last fds, which it
// does just after the connection ends (at most a second later).
ProcessFootprint AfterDetach(pid_t pid, const ProcessFootprint& before) {
  ProcessFootprint after = ReadFootprint(pid);
  for (int waited = 0; waited < 100 && after.fds != before.fds && ProcessAlive(pid); ++waited) {
    usleep(10000);
    after = ReadFootprint(pid);
  }
  return after;
}

// Records until a stop is asked for (then asks the agent to detach and
// takes its last events), or the process ends. Returns how it ended.
enum class Ending { kDetached, kProcessEnded, kNeverConnected };

// Until the agent has connected and its hooks are in place (it creates
// `ready`); false if that does not happen in time, or the process ends.
bool WaitUntilHooked(Recorder& recorder, pid_t pid, const AgentDropDir& drop, const char* ready) {
  auto start = Clock::now();
  while (Clock::now() - start < kConnectLimit && g_stop_signal.load() == 0) {
    recorder.PollOnce(5);
    if (recorder.open_connections() > 0 && drop.HasFile(ready)) return true;
    if (!ProcessAlive(pid)) return false;
  }
  return false;
}

void Warn(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::cerr << "memframe: warning: " << line << '\n';
}

// `entries` writes the entries the agent hands over meanwhile (a present in a
// module loaded while recorded), and writes them back before the detach.
Ending Record(Recorder& recorder, pid_t pid, double duration_s, EntryPatchRequests* entries,
              KeptWindow* window = nullptr) {
  auto start = Clock::now();
  bool connected = false, detach_sent = false;
  Clock::time_point detach_deadline{};
  for (;;) {
    recorder.PollOnce(kAttachPollMs);
    if (window && KeptWindow::TakeSignal()) window->SaveBeside("signal", "signal SIGUSR1");
    if (recorder.open_connections() > 0) connected = true;
    if (!connected && Clock::now() - start > kConnectLimit) return Ending::kNeverConnected;
    if (connected && recorder.open_connections() == 0)
      return detach_sent ? Ending::kDetached : Ending::kProcessEnded;
    bool stop = g_stop_signal.load() != 0 ||
                (duration_s > 0 && std::chrono::duration<double>(Clock::now() - start).count() >= duration_s);
    if (entries && connected && !detach_sent) Warn(entries->Take());
    if (stop && !detach_sent && connected) {
      if (entries) Warn(entries->RestoreAll());
      recorder.RequestDetach();
      detach_sent = true;
      detach_deadline = Clock::now() + kDetachLimit;
    }
    if (stop && !connected) return Ending::kNeverConnected;
    if (detach_sent && Clock::now() > detach_deadline) {
      recorder.AbandonOpenConnections();
      return Ending::kDetached;
    }
    if (!ProcessAlive(pid) && !connected) return Ending::kProcessEnded;
  }
}

int Attach(const AttachOptions& options) {
  std::string error, agent;
  if (!ResolveAgent(options.run, &agent, &error)) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  std::string refusal = WhyCannotAttach(options.pid, agent);
  if (!refusal.empty()) {
    ErrorLine(std::cerr) << refusal << '\n';
    return kExitMemframeError;
  }
  std::unique_ptr<AgentSocket> socket = AgentSocket::Create(&error);
  if (!socket) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  const std::string dir = socket->path().substr(0, socket->path().rfind('/'));
  std::unique_ptr<AgentDropDir> drop = AgentDropDir::Create(dir, "agent", &error);
  if (!drop) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  constexpr const char* kReady = "hooks.ready";
  constexpr const char* kEntries = "entries";
  const std::string settings = dir + "/attach.conf";
  if (!WriteAgentSettings(settings, socket->path(), drop->PathOf(kReady), drop->PathOf(kEntries), options.run,
                          &error)) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  struct RemoveOnExit {
    std::string path;
    ~RemoveOnExit() { unlink(path.c_str()); }
  } remove_settings{settings};
  HandOver(dir, socket->path(), settings, *drop, options.pid);

  std::string output = !options.run.output.empty() ? options.run.output
                                                    : "memframe-" + ProcessName(options.pid) + "-" +
                                                          std::to_string(options.pid) + ".mfc";
  constexpr int kCaptureZstdLevel = 1;  // as memframe run (run_command.cc)
  OutputPolicy policy = wire::CapturePolicy();
  policy.inputs = {agent};
  if (!options.run.force) {
    policy.existing = OutputPolicy::Existing::kRefuse;
    policy.force_hint = "pass --force to replace it";
  }
  wire::RecorderInfo info;
  info.set_command_line(ProcessCommandLine(options.pid));
  info.set_start_unix_ns(UnixNanoseconds());
  info.set_recorder_version(kMemframeVersion);
  info.set_finished(false);
  info.set_attached(true);
  // --keep-last: a window instead of the capture (keep_last.h).
  std::unique_ptr<KeptWindow> window;
  std::unique_ptr<wire::CaptureWriter> capture;
  struct stat existing {};
  if (options.run.keep_last_ms && !options.run.force && lstat(output.c_str(), &existing) == 0)
    error = output + " exists; pass --force to replace it";
  else if (options.run.keep_last_ms)
    window = KeptWindow::Create(output, options.run.keep_last_ms, info, std::cerr, &error);
  else
    capture = wire::CaptureWriter::Create(output, &error, kCaptureZstdLevel, policy);
  if (!capture && !window) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitMemframeError;
  }
  if (!RegisterSession(options.pid, &error)) {
    ErrorLine(std::cerr) << error << '\n';
    if (capture) DiscardCapture(*capture);
    return kExitMemframeError;
  }
  struct Unregister {
    pid_t pid;
    ~Unregister() { UnregisterSession(pid); }
  } unregister{options.pid};
  StopSignals stop_signals;
  if (window) KeptWindow::WatchSignal();

  // The recorder listens before the agent arrives (the socket has a backlog).
  Recorder recorder(socket->fd(), capture.get(), std::cerr, window.get());
  const ProcessFootprint before = ReadFootprint(options.pid);
  InjectResult injected = InjectAgent(options.pid, agent, settings);
  if (!injected.ok || injected.attach_status != 0) {
    if (!injected.ok)
      ErrorLine(std::cerr) << "cannot attach to process " << options.pid << ": " << injected.error << '\n';
    else if (injected.attach_status == 1)
      ErrorLine(std::cerr) << "process " << options.pid
                           << " is already being recorded by memframe (memframe run, or another memframe attach)\n";
    else
      ErrorLine(std::cerr) << "the agent could not start in process " << options.pid << " (its stderr says why)\n";
    if (capture) DiscardCapture(*capture);
    return kExitMemframeError;
  }
  info.set_attach_pause_us(static_cast<uint32_t>(std::lround(injected.call_thread_ms * 1000)));
  char line[256];
  snprintf(line, sizeof line,
           "memframe: attached to process %d (%s): its threads stopped %.1f ms (%d threads), thread %d ran the "
           "agent's loading for %.1f ms\n",
           options.pid, ProcessName(options.pid).c_str(), injected.all_stopped_ms, injected.threads,
           injected.call_thread, injected.call_thread_ms);
  std::cerr << line;
  if (window) {
    window->SetHeader(info);
  } else if (!AppendRecorderInfo(capture.get(), info) || !capture->Flush()) {
    ErrorLine(std::cerr) << capture->error() << '\n';
    recorder.RequestDetach();
  }
  std::unique_ptr<LiveServer> live = options.run.live_socket ? StartLiveServer(*socket, output) : nullptr;
  if (live) {
    recorder.AttachLive(live.get());
    if (options.run.launch_viewer) LaunchViewer(live->socket_path());
  }
  Ending ending = Ending::kNeverConnected;
  EntryPatchRequests entries(options.pid, *drop, kEntries);
  if (WaitUntilHooked(recorder, options.pid, *drop, kReady)) {
    // What the agent could not hook (a present's entry it would not patch).
    std::string said;
    drop->ReadFile(kReady, &said);
    std::istringstream said_lines(said);
    for (std::string line; std::getline(said_lines, line);)
      if (!line.empty()) std::cerr << "memframe: warning: " << line << '\n';
    // The agent handed its entries over before the ready file.
    Warn(entries.Take());
    if (entries.armed() > 0) {
      snprintf(line, sizeof line, "memframe: patched %zu function entr%s with every thread stopped (%.1f ms)\n",
               entries.armed(), entries.armed() == 1 ? "y" : "ies", entries.longest_stop_ms());
      std::cerr << line;
    }
    std::cerr << "memframe: recording; Ctrl+C or `memframe detach " << options.pid
              << "` ends it, the process runs on\n";
    ending = Record(recorder, options.pid, options.duration_s, &entries, window.get());
  } else {
    recorder.RequestDetach();  // if it connected after all
    Record(recorder, options.pid, 0.001, nullptr);
  }
  if (ending == Ending::kNeverConnected) {
    std::cerr << "memframe: the agent in process " << options.pid
              << " never connected (run with MEMFRAME_DEBUG=1 and see the process's stderr)\n";
  }
  info.set_detached(ending == Ending::kDetached);
  bool alive = ProcessAlive(options.pid);
  if (ending == Ending::kDetached)
    std::cerr << "memframe: detached from process " << options.pid << (alive ? "; it runs on\n" : "\n");
  if (ending == Ending::kDetached && alive)
    std::cerr << "memframe: left in process " << options.pid << ": " << DescribeLeftovers(before, AfterDetach(options.pid, before))
              << '\n';
  else if (ending == Ending::kProcessEnded)
    std::cerr << "memframe: process " << options.pid << " ended\n";
  bool complete =
      window ? FinishWindow(*window, output, recorder, live.get(), info, options.run.force, options.run.summary)
             : FinishCapture(*capture, recorder, live.get(), info,
                             options.run.summary ? FinishCaptureSummary::kPrint : FinishCaptureSummary::kNone);
  return complete && ending != Ending::kNeverConnected ? 0 : kExitMemframeError;
}

}  // namespace

void PrintAttachUsage(std::ostream& out) {
  out << "usage: memframe attach [options] PID\n"
         "\n"
         "Loads the memframe agent into the running process PID (with ptrace, no\n"
         "debugger needed) and records its memory events, frame by frame, from now\n"
         "on. Ctrl+C, --duration or `memframe detach PID` ends the recording; the\n"
         "process runs on. Blocks it allocated before the attach are unknown: their\n"
         "frees are counted apart, never as errors or leaks.\n"
         "\n"
         "options:\n"
         "  --duration S        stop recording after S seconds\n"
         "  -o, --output FILE   capture file (default: memframe-NAME-PID.mfc)\n"
         "  --force, --stack-depth N, --no-stacks, --no-summary, --time-slice MS, --drop,\n"
         "  --frame-source S, --free-stacks, --no-live, --live, --agent PATH,\n"
         "  --keep-last DURATION\n"
         "                      as for `memframe run` (see memframe run --help)\n"
         "  -h, --help          show this help\n"
         "\n"
         "Linux restricts ptrace on some distributions (kernel.yama.ptrace_scope=1):\n"
         "then run `sudo sysctl kernel.yama.ptrace_scope=0`, or give memframe the\n"
         "capability: `sudo setcap cap_sys_ptrace=ep $(command -v memframe)`.\n";
}

void PrintDetachUsage(std::ostream& out) {
  out << "usage: memframe detach PID\n"
         "\n"
         "Ends the `memframe attach PID` recording: the agent sends its last events,\n"
         "restores every hook it patched and goes passive; the process runs on.\n"
         "\n"
         "options:\n"
         "  -h, --help     show this help\n";
}

int AttachCommand(const std::vector<std::string>& args) {
  AttachOptions options;
  std::string error;
  switch (ParseAttachArguments(args, &options, &error)) {
    case AttachParse::kHelp:
      PrintAttachUsage(std::cout);
      return 0;
    case AttachParse::kError:
      return UsageError("attach", error, kExitMemframeError);
    case AttachParse::kAttach:
      break;
  }
  return Attach(options);
}

int DetachCommand(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  if (std::optional<int> status = ReadCommandArgs("detach", {}, args, &positional)) return *status;
  pid_t pid = 0;
  if (positional.size() != 1 || !ParsePid(positional[0], &pid)) {
    return UsageError("detach",
                      positional.empty() ? "no process id" : "want one process id, not '" + positional.back() + "'");
  }
  pid_t recorder = SessionOwner(pid);
  if (!recorder || kill(recorder, SIGINT) != 0) {
    ErrorLine(std::cerr) << "no `memframe attach " << pid << "` of yours is recording\n";
    return kExitMemframeError;
  }
  // Wait until it has taken the last events and closed the capture.
  for (int waited = 0; waited < 300 && IsRunningMemframe(recorder); ++waited) usleep(100000);
  std::cerr << "memframe: detach of process " << pid << " requested from memframe (pid " << recorder << ")\n";
  return 0;
}

}  // namespace memframe::injector
