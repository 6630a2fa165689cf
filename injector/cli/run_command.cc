#include "run_command.h"

#include <limits.h>
#include <spawn.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli_common.h"
#include "keep_last.h"
#include "kept_window.h"
#include "launch.h"
#include "live_server.h"
#include "memframe/capture_file.h"
#include "memframe/format.h"
#include "memframe/frame_sources.h"
#include "memframe/output_file.h"
#include "memframe/paths.h"
#include "memframe.pb.h"
#include "own_allocator_check.h"
#include "program_check.h"
#include "recorder.h"
#include "tcp_listener.h"

#ifdef MEMFRAME_WITH_ANALYSIS
#include "live_summary.h"
#include "memframe/report/report.h"
#endif

namespace memframe::injector {

uint64_t UnixNanoseconds() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

bool ResolveAgent(const RunOptions& options, std::string* agent, std::string* error) {
  const char* from_env = getenv("MEMFRAME_AGENT");
  std::string wanted = !options.agent.empty() ? options.agent : (from_env && *from_env ? from_env : DefaultAgentPath());
  char resolved[PATH_MAX];
  if (!realpath(wanted.c_str(), resolved) || access(resolved, R_OK) != 0) {
    *error = "agent library " + wanted + " not found (build the memframe_agent target, or pass --agent PATH)";
    return false;
  }
  *agent = resolved;
  // LD_PRELOAD splits its list at colons and spaces.
  if (agent->find_first_of(": \t") != std::string::npos) {
    *error = "the agent path " + *agent + " contains a colon or a space, which LD_PRELOAD cannot express";
    return false;
  }
  return true;
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return path;
  return std::string(cwd) + "/" + path;
}

// The live socket sits beside the agents' one, in the run's private
// directory, so that only this user can follow the run.
std::unique_ptr<LiveServer> StartLiveServer(const AgentSocket& socket, const std::string& capture_path) {
  const std::string& agent_path = socket.path();
  std::string path = agent_path.substr(0, agent_path.rfind('/') + 1) + "live.sock";
  std::string error;
  // MEMFRAME_LIVE_QUEUE_BYTES: how far a viewer may fall behind before it is
  // dropped (tests make it small).
  const char* queue = getenv("MEMFRAME_LIVE_QUEUE_BYTES");
  size_t max_queued = queue ? static_cast<size_t>(strtoull(queue, nullptr, 10)) : 0;
  auto live = LiveServer::Create(path, AbsolutePath(capture_path), std::cerr, &error, max_queued);
  if (!live) {
    std::cerr << "memframe: no live view (" << error << ")\n";
    return nullptr;
  }
  std::cerr << "memframe: live view: memframe-viewer --follow " << path << '\n';
  return live;
}

// --live: memframe-viewer from beside this executable, following the run.
// It is not waited for: it outlives the run to show the finished capture.
void LaunchViewer(const std::string& socket_path) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string viewer = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
  viewer = viewer.substr(0, viewer.rfind('/') + 1) + "memframe-viewer";
  std::vector<std::string> words = {viewer, "--follow", socket_path};
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int error = posix_spawn(&pid, viewer.c_str(), nullptr, nullptr, argv.data(), environ);
  if (error != 0) std::cerr << "memframe: cannot start " << viewer << ": " << strerror(error) << '\n';
}

// Removes a capture that holds nothing of the program (it never ran); only a
// file this run created, never a device such as /dev/full.
void DiscardCapture(wire::CaptureWriter& capture) {
  capture.Close();
  struct stat st {};
  if (lstat(capture.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) remove(capture.path().c_str());
}

// Closes the capture with `info` as its closing record (finished), tells
// live viewers, and prints the summary or what went wrong. False if the
// capture is incomplete.
bool FinishCapture(wire::CaptureWriter& capture, Recorder& recorder, LiveServer* live, wire::RecorderInfo info,
                   FinishCaptureSummary summary, LiveSummary* kept) {
  const std::string& output = capture.path();
  info.set_finished(true);
  // After a failed write the writer has cut the file back to its last
  // complete frame; the closing record still says how the program ended and
  // why the capture stops early, if the disk takes it.
  if (recorder.capture_failed()) info.set_recording_error(capture.error());
  bool closed = AppendRecorderInfo(&capture, info);
  closed = capture.Close() && closed;
  capture.SetRecordTap(nullptr);
  if (live) {
    // The closing record too, then the viewers see the end of the stream.
    wire::Packet closing;
    *closing.mutable_recorder() = info;
    std::string bytes = closing.SerializeAsString();
    if (closed) live->Publish(0, bytes.data(), bytes.size());
    recorder.AttachLive(nullptr);
    live->Finish(1000);
  }
  // The program ran: its status stands, and the recording's trouble is said
  // here (and in the capture when it could be written).
  if (recorder.capture_failed() || !closed) {
    std::cerr << "memframe: the capture " << output << " is incomplete (" << capture.error() << "); it holds what was"
              << " written before that" << (closed ? ", and says so" : ", without the closing record") << '\n';
    return false;
  }
#ifdef MEMFRAME_WITH_ANALYSIS
  if (summary == FinishCaptureSummary::kPrint) {
    if (kept)
      kept->Print(std::cerr, std::cerr);
    else
      analysis::PrintRunSummary(output, std::cerr, std::cerr);
  }
#endif
  std::cerr << "memframe: capture written to " << output << " (" << capture.bytes_written() << " bytes)\n";
  return true;
}

namespace {

// While the program runs the loop wakes at least this often to reap it (its
// SIGCHLD usually wakes it sooner).
constexpr int kReapPollMs = 100;
// After the program exits, a descendant that inherited the agent may keep
// its connection open; this long is waited for it.
constexpr auto kDrainLimit = std::chrono::seconds(3);
constexpr int kMaxStackDepth = 64;

std::string ShellQuote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "-_./=:,+@%") == std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string JoinCommand(const std::vector<std::string>& command) {
  std::string line;
  for (const auto& word : command) line += (line.empty() ? "" : " ") + ShellQuote(word);
  return line;
}

// The presents the agents hook, by the names they give their markers
// (memframe/frame_sources.h).
std::string PresentNames() {
  std::string linux_names, windows_names;
  for (const wire::FrameSource& present : wire::kFrameSources) {
    std::string& names = present.platform == wire::kFrameLinux ? linux_names : windows_names;
    names += (names.empty() ? "" : ", ") + std::string(present.name);
  }
  return linux_names + ", or of a Windows game (wine memframe.exe run) " + windows_names;
}

// What MEMFRAME_FRAME_SOURCE accepts: a present of either agent, since the
// program may be memframe.exe under Wine (which refuses a Linux present);
// the Linux agent warns about a Windows one.
bool IsFrameSource(const std::string& source) {
  if (source == "auto" || source == "slices") return true;
  for (const wire::FrameSource& present : wire::kFrameSources)
    if (source == present.name) return true;
  return false;
}

// Records until the program has exited and every connection is closed (or
// kDrainLimit after the exit). Returns the program's exit status.
int Record(ChildProcess& child, Recorder& recorder, std::string* note, KeptWindow* window) {
  int status = 0;
  while (!child.TryWait(&status, note)) {
    recorder.PollOnce(kReapPollMs);
    if (window && KeptWindow::TakeSignal()) window->SaveBeside("signal", "signal SIGUSR1");
  }
  auto deadline = std::chrono::steady_clock::now() + kDrainLimit;
  for (;;) {
    // With nothing open, one non-blocking round still takes connections
    // that wait in the backlog.
    if (recorder.open_connections() == 0) {
      recorder.PollOnce(0);
      if (recorder.open_connections() == 0) break;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      recorder.AbandonOpenConnections();
      break;
    }
    recorder.PollOnce(static_cast<int>(std::min<int64_t>(left.count(), kReapPollMs)));
  }
  return status;
}

// --keep-last: the recorder writes segments instead of the capture, and
// the window is written to `output` when the program ends.
int RunKeepingWindow(const RunOptions& options, ChildProcess& child, const AgentSocket& socket,
                     const std::string& output, wire::RecorderInfo info, int tcp_fd) {
  std::string error;
  struct stat st {};
  if (!options.force && lstat(output.c_str(), &st) == 0) {
    child.Abort();
    ErrorLine(std::cerr) << output << " exists; pass --force to replace it\n";
    return kExitRunFailed;
  }
  std::unique_ptr<KeptWindow> window = KeptWindow::Create(output, options.keep_last_ms, info, std::cerr, &error);
  if (!window) {
    child.Abort();
    ErrorLine(std::cerr) << error << '\n';
    return kExitRunFailed;
  }
  if (!child.Release(&error)) {
    ErrorLine(std::cerr) << "cannot run " << options.command[0] << ": " << error << '\n';
    return kExitRunCannotExecute;
  }
  KeptWindow::WatchSignal();
  std::cerr << "memframe: keeping the last " << options.keep_last_ms / 1000.0 << " s; kill -USR1 " << getpid()
            << " (or memframe mark) saves the window so far beside " << output << '\n';
  std::string note;
  Recorder recorder(options.tcp ? tcp_fd : socket.fd(), nullptr, std::cerr, window.get());
  std::unique_ptr<LiveServer> live = options.live_socket ? StartLiveServer(socket, output) : nullptr;
  if (live) recorder.AttachLive(live.get());
  int status = Record(child, recorder, &note, window.get());
  if (!note.empty()) std::cerr << "memframe: " << options.command[0] << " was " << note << '\n';
  if (recorder.recorded_streams() == 0) {
    std::cerr << "memframe: no process connected; no capture written\n";
    if (live) {
      recorder.AttachLive(nullptr);
      live->Finish(1000);
    }
    return status;
  }
  info.set_exit_status(status);
  info.set_termination_signal(child.termination_signal());
  FinishWindow(*window, output, recorder, live.get(), info, options.force, options.summary);
  return status;
}

int Run(const RunOptions& options) {
  std::string error, program_path, agent;
  int missing = 0;
  if (!ResolveProgram(options.command[0], &program_path, &error, &missing)) {
    ErrorLine(std::cerr) << error << '\n';
    return missing == ENOENT || missing == ENOTDIR ? kExitRunNotFound : kExitRunCannotExecute;
  }
  std::string refusal = options.tcp ? "" : WhyAgentCannotLoad(program_path);
  if (!refusal.empty()) {
    ErrorLine(std::cerr) << refusal << '\n';
    return kExitRunFailed;
  }
  // --tcp: the program is a Windows loader (wine memframe.exe ...), whose
  // allocator is not the game's.
  std::string own_allocator = options.tcp ? "" : OwnAllocatorWarning(program_path);
  if (!own_allocator.empty()) std::cerr << "memframe: note: " << own_allocator << '\n';
  if (!options.tcp && !ResolveAgent(options, &agent, &error)) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitRunFailed;
  }
  std::unique_ptr<AgentSocket> socket = AgentSocket::Create(&error);
  if (!socket) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitRunFailed;
  }

  // --tcp: the program (memframe.exe under Wine) injects its own agent,
  // which connects to this loopback port instead of the Unix socket.
  int tcp_port = 0;
  int tcp_fd = options.tcp ? ListenOnLoopback(&tcp_port, &error) : -1;
  if (options.tcp && tcp_fd < 0) {
    ErrorLine(std::cerr) << error << '\n';
    return kExitRunFailed;
  }
  struct CloseFd {
    int fd;
    ~CloseFd() {
      if (fd >= 0) close(fd);
    }
  } tcp_closer{tcp_fd};

  LaunchSpec spec;
  spec.path = program_path;
  spec.argv = options.command;
  spec.preload = agent;
  if (options.tcp) spec.env.emplace_back(wire::kEnvTcp, "127.0.0.1:" + std::to_string(tcp_port));
  for (auto& entry : AgentSettingEntries(options, options.tcp ? "" : socket->path(), wire::kLaunchSession))
    spec.env.push_back(std::move(entry));

  SignalPolicy signal_policy;
  std::unique_ptr<ChildProcess> child = ChildProcess::Start(spec, &error);
  if (!child) {
    ErrorLine(std::cerr) << "cannot start " << options.command[0] << ": " << error << '\n';
    return kExitRunFailed;
  }
  // The capture is opened only now, after fork: it is named after the
  // program's pid, and the program never inherits its descriptor.
  std::string output = !options.output.empty() ? options.output
                                               : "memframe-" + Basename(options.command[0]) + "-" +
                                                     std::to_string(child->pid()) + ".mfc";
  // zstd level 1: the recorder shares the cores with the game, level 3
  // costs it ~1.3x the CPU, and on the event columns (varints, coded as
  // literals) levels 2-5 give captures no smaller (tests/bench/README.md).
  constexpr int kCaptureZstdLevel = 1;
  OutputPolicy policy = wire::CapturePolicy();
  policy.inputs = {program_path};
  if (!agent.empty()) policy.inputs.push_back(agent);
  if (!options.force) {
    policy.existing = OutputPolicy::Existing::kRefuse;
    policy.force_hint = "pass --force to replace it";
  }
  wire::RecorderInfo info;
  info.set_command_line(JoinCommand(options.command));
  info.set_start_unix_ns(UnixNanoseconds());
  info.set_recorder_version(kMemframeVersion);
  info.set_finished(false);
  if (options.keep_last_ms) return RunKeepingWindow(options, *child, *socket, output, info, tcp_fd);
  std::unique_ptr<wire::CaptureWriter> capture = wire::CaptureWriter::Create(output, &error, kCaptureZstdLevel, policy);
#ifdef MEMFRAME_WITH_ANALYSIS
  // The summary is kept as the capture is written: at exit only the tail
  // is left (live_summary.h).
  std::unique_ptr<LiveSummary> kept_summary;
  if (capture && options.summary) {
    kept_summary = std::make_unique<LiveSummary>(output);
    capture->SetRecordTap([summary = kept_summary.get()](uint32_t stream, const void* packet, size_t size) {
      summary->Add(stream, packet, size);
    });
  }
  LiveSummary* kept = kept_summary.get();
#else
  LiveSummary* kept = nullptr;
#endif
  // Flushed at once: a live viewer that connects before the program's first
  // record is told the file holds this one, and must find it there.
  if (!capture || !AppendRecorderInfo(capture.get(), info) || !capture->Flush()) {
    child->Abort();
    ErrorLine(std::cerr) << (capture ? capture->error() : error) << '\n';
    if (capture) DiscardCapture(*capture);
    return kExitRunFailed;
  }
  if (!child->Release(&error)) {
    ErrorLine(std::cerr) << "cannot run " << program_path << ": " << error << '\n';
    DiscardCapture(*capture);
    return kExitRunCannotExecute;
  }

  std::string note;
  Recorder recorder(options.tcp ? tcp_fd : socket->fd(), capture.get(), std::cerr);
  std::unique_ptr<LiveServer> live = options.live_socket ? StartLiveServer(*socket, output) : nullptr;
  if (live) {
    recorder.AttachLive(live.get());
    if (options.launch_viewer) LaunchViewer(live->socket_path());
  }
  int status = Record(*child, recorder, &note, nullptr);
  if (!note.empty()) std::cerr << "memframe: " << options.command[0] << " was " << note << '\n';
  if (recorder.recorded_streams() == 0) {
    // A capture of nothing is no capture: none is left behind.
    if (options.tcp && status == kExitRunFailed) {
      // Under --tcp the program is usually memframe.exe, whose refusals
      // (said above) exit 125 before any game starts.
      std::cerr << "memframe: " << options.command[0] << " exited with status " << kExitRunFailed
                << " (a refusal of memframe's, said above) before any process connected; no capture written\n";
    } else {
      std::cerr << "memframe: no process connected (did the agent " << (options.tcp ? "memframe_agent.dll" : agent)
                << " load?); no capture written\n";
    }
    capture->SetRecordTap(nullptr);
    if (live) {
      recorder.AttachLive(nullptr);
      live->Finish(1000);
    }
    DiscardCapture(*capture);
    return status;
  }

  info.set_exit_status(status);
  info.set_termination_signal(child->termination_signal());
  FinishCapture(*capture, recorder, live.get(), info, options.summary ? FinishCaptureSummary::kPrint : FinishCaptureSummary::kNone,
                kept);
  return status;
}

}  // namespace

namespace {

std::string SettingText(const char* value) { return value ? value : ""; }
std::string SettingText(bool value) { return value ? "1" : "0"; }
std::string SettingText(int value) { return std::to_string(value); }
bool SameSetting(const char* a, const char* b) { return SettingText(a) == SettingText(b); }
template <typename T>
bool SameSetting(T a, T b) {
  return a == b;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> AgentSettingEntries(const RunOptions& options,
                                                                     const std::string& socket_path,
                                                                     wire::Session session) {
  wire::AgentSettings settings = options.agent_settings;
  settings.socket_path = socket_path.empty() ? nullptr : socket_path.c_str();
  settings.frame_source = options.frame_source.empty() ? nullptr : options.frame_source.c_str();
  const wire::AgentSettings defaults;
  std::vector<std::pair<std::string, std::string>> entries;
#define MEMFRAME_X(type, field, name, default_value, min, max, setting_scope)                  \
  if ((session == wire::kLaunchSession || wire::setting_scope == wire::kEverySession) &&           \
      !SameSetting(settings.field, defaults.field))                                            \
    entries.emplace_back(wire::name, SettingText(settings.field));
  MEMFRAME_AGENT_SETTINGS(MEMFRAME_X)
#undef MEMFRAME_X
  return entries;
}

void PrintRunUsage(std::ostream& out) {
  out << "usage: memframe run [options] [--] PROGRAM [ARGS...]\n"
         "\n"
         "Runs PROGRAM with the memframe agent preloaded and records its memory\n"
         "events, frame by frame, into a capture file. Exits with PROGRAM's status,\n"
         "or with 127 (PROGRAM not found), 126 (PROGRAM cannot be run) or 125 (memframe\n"
         "failed) for its own failures. Options take --opt VALUE or --opt=VALUE.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE   capture file (default: memframe-PROGRAM-PID.mfc), created\n"
         "                      readable by you only; an existing FILE is refused\n"
         "  --force             replace an existing FILE\n"
         "  --stack-depth N     frames per call stack, 1.." << kMaxStackDepth << " (default: 32)\n"
         "  --no-stacks         record no call stacks (fastest)\n"
         "  --no-summary        do not print the summary when PROGRAM ends\n"
         "  --time-slice MS     until PROGRAM first presents, cut time into MS-long\n"
         "                      slices, used as frames if it never presents (default 16,\n"
         "                      0 = off)\n"
         "  --drop              never slow PROGRAM down: when the recorder falls behind,\n"
         "                      drop events and count them (default: wait, lose nothing)\n"
         "  --follow-fork       record forked children too, each as its own stream\n"
         "  --no-follow-exec    programs PROGRAM execs run without the agent\n"
         "  --frame-source S    what ends a frame: auto (the outermost present of any\n"
         "                      kind, default), slices (time slices only), or one\n"
         "                      present by name, e.g. glXSwapBuffers, SDL_GL_SwapWindow\n"
         "                      (a Windows game's: SwapBuffers, IDXGISwapChain::Present, ...)\n"
         "  --free-stacks       capture the call stack of every free too (slower; the\n"
         "                      mismatches report then shows where each block was freed)\n"
         "  --no-gpu            record no GPU objects (GL buffers, textures, renderbuffers;\n"
         "                      Vulkan memory): the GPU hooks only pass the calls on\n"
         "  --keep-last DURATION  keep only the last DURATION (30s, 10m, 2h) of full events\n"
         "                      on disk, in segments beside FILE, plus per-frame totals of\n"
         "                      the whole run; the window is written to FILE at the end,\n"
         "                      and beside it (FILE-NAME.mfc) at `memframe mark` and at\n"
         "                      SIGUSR1 to memframe\n"
         "  --no-live           offer no live socket (see --live)\n"
         "  --live              start memframe-viewer following the run; without it,\n"
         "                      memframe prints the command that follows it\n"
         "  --agent PATH        agent library (default: $MEMFRAME_AGENT, else the one\n"
         "                      installed beside memframe, ../lib/<arch>/memframe/)\n"
         "  --tcp               preload nothing and take agents on a loopback TCP port\n"
         "                      named in $MEMFRAME_TCP: for the Windows agent under Wine,\n"
         "                      e.g. memframe run --tcp -- wine memframe.exe run -- GAME.exe\n"
         "  -h, --help          show this help\n";
}

std::vector<CommandOption> RecordingOptions(RunOptions* o) {
  auto unset = [](bool* flag) {
    return [flag](const std::string&) {
      *flag = false;
      return std::string();
    };
  };
  return {
      Text("-o,--output", "FILE", &o->output),
      Flag("--force", &o->force),
      Text("--agent", "PATH", &o->agent),
      {"--stack-depth", "N", "",
       [o](const std::string& value) {
         long depth = 0;
         if (!ParseLong(value, &depth) || depth < 1 || depth > kMaxStackDepth)
           return "--stack-depth wants a number from 1 to " + std::to_string(kMaxStackDepth) + ", not '" + value + "'";
         o->agent_settings.stack_depth = static_cast<int>(depth);
         return std::string();
       }},
      {"--no-stacks", "", "", unset(&o->agent_settings.stacks)},
      {"--no-summary", "", "", unset(&o->summary)},
      {"--time-slice", "MS", "",
       [o](const std::string& value) {
         long ms = 0;
         if (!ParseLong(value, &ms) || ms < 0 || ms > 60'000)
           return "--time-slice wants milliseconds from 0 to 60000, not '" + value + "'";
         o->agent_settings.time_slice_ms = static_cast<int>(ms);
         return std::string();
       }},
      Flag("--drop", &o->agent_settings.drop_when_full),
      {"--frame-source", "S", "",
       [o](const std::string& value) {
         if (!IsFrameSource(value))
           return "--frame-source wants auto, slices or one of the presents " + PresentNames() + ", not '" + value +
                  "'";
         o->frame_source = value;
         return std::string();
       }},
      Flag("--free-stacks", &o->agent_settings.free_stacks),
      {"--no-gpu", "", "", unset(&o->agent_settings.gpu)},
      {"--no-live", "", "", unset(&o->live_socket)},
      Flag("--live", &o->launch_viewer),
      {"--keep-last", "DURATION", "",
       [o](const std::string& value) {
         if (!ParseKeepLast(value, &o->keep_last_ms))
           return "--keep-last wants a duration from 1s to 7 days (30s, 10m, 2h), not '" + value + "'";
         return std::string();
       }},
  };
}

RunParse ParseRunArguments(const std::vector<std::string>& args, RunOptions* options, std::string* error) {
  std::vector<CommandOption> table = RecordingOptions(options);
  table.push_back(Flag("--follow-fork", &options->agent_settings.follow_fork));
  table.push_back({"--no-follow-exec", "", "", [options](const std::string&) {
                     options->agent_settings.follow_exec = false;
                     return std::string();
                   }});
  table.push_back(Flag("--tcp", &options->tcp));
  // Options end at "--" or at PROGRAM, whose own options pass untouched.
  switch (ParseCommandLine(table, args, &options->command, error, OptionsEnd::kAtFirstPositional)) {
    case ParsedCommandLine::kHelp: return RunParse::kHelp;
    case ParsedCommandLine::kError: return RunParse::kError;
    case ParsedCommandLine::kOk: break;
  }
  if (options->command.empty()) {
    *error = "no program to run";
    return RunParse::kError;
  }
  return RunParse::kRun;
}

int RunCommand(const std::vector<std::string>& args) {
  RunOptions options;
  std::string error;
  switch (ParseRunArguments(args, &options, &error)) {
    case RunParse::kHelp:
      PrintRunUsage(std::cout);
      return 0;
    case RunParse::kError:
      return UsageError("run", error, kExitRunFailed);
    case RunParse::kRun:
      break;
  }
  return Run(options);
}

}  // namespace memframe::injector
