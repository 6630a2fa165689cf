// The Linux-specific part of `memframe run`: a private socket for the agents,
// starting the program with the agent preloaded, and the signal policy while
// it runs. Kept thin so that another platform's launcher can sit beside it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace memframe::injector {

// A directory only we can enter (mkdtemp, mode 0700, under $TMPDIR or /tmp)
// holding the listening socket `agent.sock`. Both are removed on destruction,
// so every exit path of `memframe run` cleans up.
class AgentSocket {
 public:
  static std::unique_ptr<AgentSocket> Create(std::string* error);
  ~AgentSocket();
  AgentSocket(const AgentSocket&) = delete;
  AgentSocket& operator=(const AgentSocket&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  AgentSocket() = default;
  std::string dir_;
  std::string path_;
  int fd_ = -1;
};

// Where the agent may be, in the order memframe looks, for an executable in
// `exe_dir`: the install layout relative to the binary
// (<bindir>/../lib/<multiarch>/memframe/, so an installed tree works at any
// prefix), the build tree's <bin>/../lib/, then the path configured at build
// time (MEMFRAME_AGENT_INSTALL_PATH).
std::vector<std::string> AgentCandidates(const std::string& exe_dir);

// The first of AgentCandidates(directory of this executable) that exists,
// else the first of them (for the error message).
std::string DefaultAgentPath();

// While alive: SIGINT and SIGQUIT do not end memframe (the terminal sends
// them to the whole process group; the program decides what they mean),
// SIGPIPE is ignored, and SIGTERM / SIGHUP are forwarded to the launched
// program. Each of the four also ends any wait on an output that takes no
// data (InterruptBlockedWrites), so memframe ends once the program has,
// whatever reads its capture. A program launched meanwhile gets the
// dispositions memframe started with.
class SignalPolicy {
 public:
  SignalPolicy();
  ~SignalPolicy();
  SignalPolicy(const SignalPolicy&) = delete;
  SignalPolicy& operator=(const SignalPolicy&) = delete;
};

struct LaunchSpec {
  std::string path;               // resolved executable
  std::vector<std::string> argv;  // argv[0] as the user typed it
  std::string preload;            // prepended to LD_PRELOAD
  std::vector<std::pair<std::string, std::string>> env;  // set or replaced
};

// The launched program. Start() forks a child that waits at a gate before
// exec, so that the caller knows the pid (the capture is named after it)
// and can still call the launch off without the program ever running.
class ChildProcess {
 public:
  static std::unique_ptr<ChildProcess> Start(const LaunchSpec& spec, std::string* error);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Lets the child exec; false with the reason if exec failed.
  bool Release(std::string* error);
  // The child exits without running the program; it is reaped.
  void Abort();
  // Non-blocking: true once the child has exited, with its status as a shell
  // reports it (exit code, or 128 + signal) and a note if it was killed.
  bool TryWait(int* status, std::string* note);
  // After TryWait returned true: the signal that killed it, 0 if it exited.
  int termination_signal() const { return termination_signal_; }

 private:
  ChildProcess() = default;
  bool Reap(int options, int* status, std::string* note);

  pid_t pid_ = -1;
  int gate_fd_ = -1;        // write end: one byte releases the child
  int exec_error_fd_ = -1;  // read end: errno from a failed exec, EOF on success
  bool released_ = false;
  bool reaped_ = false;
  int termination_signal_ = 0;
};

}  // namespace memframe::injector
