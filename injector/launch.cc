#include "launch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "memframe/output_file.h"

extern char** environ;

namespace memframe::injector {

namespace {

// ---- signals ----------------------------------------------------------------

constexpr int kTerminalSignals[] = {SIGINT, SIGQUIT};
constexpr int kForwardedSignals[] = {SIGTERM, SIGHUP};
constexpr int kPolicySignals[] = {SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP, SIGCHLD};

// Written before fork and read by the child between fork and exec, where only
// async-signal-safe calls are allowed: plain arrays, no allocation.
struct sigaction g_original[NSIG];
bool g_policy_active = false;
std::atomic<pid_t> g_forward_to{0};

// Installed without SA_RESTART: the child's exit interrupts the recorder's
// poll(), so memframe notices it at once instead of at the next tick.
void NoteChildExit(int) {}

// The terminal sent it to the program too, which decides what it means;
// memframe only stops waiting on an output that takes no data (a FIFO whose
// reader stalled), so that it can finish once the program has.
void StopWaitingOnOutputs(int) { InterruptBlockedWrites(); }

void ForwardSignal(int signal_number) {
  pid_t child = g_forward_to.load(std::memory_order_relaxed);
  if (child > 0) kill(child, signal_number);
  InterruptBlockedWrites();
}

// In the child after fork: what memframe started with, so the program sees
// the terminal signals exactly as it would without memframe.
void RestoreOriginalSignals() {
  if (g_policy_active) {
    for (int s : kPolicySignals) sigaction(s, &g_original[s], nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// ---- exec in the child --------------------------------------------------------

[[noreturn]] void ExecChild(int gate_fd, int exec_error_fd, const char* path, char* const* argv, char* const* envp) {
  RestoreOriginalSignals();
  char go = 0;
  ssize_t got;
  do {
    got = read(gate_fd, &go, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) _exit(127);  // called off, or memframe died before releasing us
  execve(path, argv, envp);
  int error_number = errno;
  ssize_t ignored = write(exec_error_fd, &error_number, sizeof(error_number));
  (void)ignored;
  _exit(127);
}

std::string PrependPreload(const std::string& agent) {
  const char* existing = getenv("LD_PRELOAD");
  if (!existing || !*existing) return agent;
  return agent + ":" + existing;
}

}  // namespace

// ---- AgentSocket ----------------------------------------------------------------

std::unique_ptr<AgentSocket> AgentSocket::Create(std::string* error) {
  const char* tmpdir = getenv("TMPDIR");
  std::string base = tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp";
  std::string pattern = base + "/memframe-XXXXXX";
  std::unique_ptr<AgentSocket> socket_dir(new AgentSocket());
  if (!mkdtemp(pattern.data())) {
    *error = "cannot create a private directory in " + base + ": " + strerror(errno);
    return nullptr;
  }
  socket_dir->dir_ = pattern;
  socket_dir->path_ = pattern + "/agent.sock";

  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_dir->path_.size() >= sizeof(address.sun_path)) {
    *error = "socket path " + socket_dir->path_ + " is too long for a Unix socket; set TMPDIR to a shorter directory";
    return nullptr;
  }
  memcpy(address.sun_path, socket_dir->path_.c_str(), socket_dir->path_.size() + 1);
  socket_dir->fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (socket_dir->fd_ < 0 || bind(socket_dir->fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(socket_dir->fd_, SOMAXCONN) != 0) {
    *error = "cannot listen on " + socket_dir->path_ + ": " + strerror(errno);
    return nullptr;
  }
  return socket_dir;
}

AgentSocket::~AgentSocket() {
  if (fd_ >= 0) close(fd_);
  if (!path_.empty()) unlink(path_.c_str());
  if (!dir_.empty()) rmdir(dir_.c_str());
}

std::vector<std::string> AgentCandidates(const std::string& exe_dir) {
  static constexpr char kAgent[] = "/libmemframe_agent.so";
  return {exe_dir + "/" MEMFRAME_AGENT_DIR_FROM_BINDIR + kAgent, exe_dir + "/../lib" + kAgent,
          MEMFRAME_AGENT_INSTALL_PATH};
}

std::string DefaultAgentPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return MEMFRAME_AGENT_INSTALL_PATH;
  std::string exe(self, static_cast<size_t>(n));
  const std::vector<std::string> candidates = AgentCandidates(exe.substr(0, exe.rfind('/')));
  char resolved[PATH_MAX];
  for (const std::string& agent : candidates)
    if (realpath(agent.c_str(), resolved) && access(resolved, R_OK) == 0) return resolved;
  return candidates.front();
}

// ---- SignalPolicy ------------------------------------------------------------

SignalPolicy::SignalPolicy() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  // Neither is SA_RESTART: a write waiting on an output must see them.
  struct sigaction terminal {};
  terminal.sa_handler = StopWaitingOnOutputs;
  sigemptyset(&terminal.sa_mask);
  struct sigaction forward {};
  forward.sa_handler = ForwardSignal;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGPIPE, &ignore, &g_original[SIGPIPE]);
  for (int s : kTerminalSignals) sigaction(s, &terminal, &g_original[s]);
  for (int s : kForwardedSignals) sigaction(s, &forward, &g_original[s]);
  struct sigaction child_exit {};
  child_exit.sa_handler = NoteChildExit;
  sigemptyset(&child_exit.sa_mask);
  sigaction(SIGCHLD, &child_exit, &g_original[SIGCHLD]);
  g_policy_active = true;
}

SignalPolicy::~SignalPolicy() {
  g_policy_active = false;
  for (int s : kPolicySignals) sigaction(s, &g_original[s], nullptr);
}

// ---- ChildProcess -------------------------------------------------------------

std::unique_ptr<ChildProcess> ChildProcess::Start(const LaunchSpec& spec, std::string* error) {
  // Everything the child needs is built here: after fork it may not allocate.
  std::vector<std::string> env_strings;
  auto overridden = [&spec](const char* entry) {
    if (!spec.preload.empty() && strncmp(entry, "LD_PRELOAD=", 11) == 0) return true;
    for (const auto& [name, value] : spec.env) {
      if (strncmp(entry, name.c_str(), name.size()) == 0 && entry[name.size()] == '=') return true;
    }
    return false;
  };
  for (char** e = environ; *e; ++e) {
    if (!overridden(*e)) env_strings.emplace_back(*e);
  }
  // No preload (memframe run --tcp): the program brings its agent itself.
  if (!spec.preload.empty()) env_strings.push_back("LD_PRELOAD=" + PrependPreload(spec.preload));
  for (const auto& [name, value] : spec.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int gate[2], exec_error[2];
  if (pipe2(gate, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + strerror(errno);
    return nullptr;
  }
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + strerror(errno);
    close(gate[0]);
    close(gate[1]);
    return nullptr;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(gate[1]);
    close(exec_error[0]);
    ExecChild(gate[0], exec_error[1], spec.path.c_str(), argv.data(), envp.data());
  }
  close(gate[0]);
  close(exec_error[1]);
  if (pid < 0) {
    *error = std::string("fork: ") + strerror(errno);
    close(gate[1]);
    close(exec_error[0]);
    return nullptr;
  }
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->gate_fd_ = gate[1];
  child->exec_error_fd_ = exec_error[0];
  g_forward_to.store(pid);
  return child;
}

ChildProcess::~ChildProcess() {
  if (gate_fd_ >= 0) close(gate_fd_);  // an unreleased child exits
  if (exec_error_fd_ >= 0) close(exec_error_fd_);
  // Only a child that never ran the program is sure to exit promptly; a
  // running one is the caller's to wait for (never block here).
  if (!released_ && !reaped_) {
    int status;
    std::string note;
    Reap(0, &status, &note);
  }
}

bool ChildProcess::Release(std::string* error) {
  released_ = true;
  char go = 'g';
  ssize_t written = write(gate_fd_, &go, 1);
  close(gate_fd_);
  gate_fd_ = -1;
  // The error pipe is close-on-exec: EOF means exec succeeded (or the child
  // died first, which TryWait then reports).
  int error_number = 0;
  ssize_t got;
  do {
    got = read(exec_error_fd_, &error_number, sizeof(error_number));
  } while (got < 0 && errno == EINTR);
  close(exec_error_fd_);
  exec_error_fd_ = -1;
  if (got == sizeof(error_number)) {
    *error = strerror(error_number);
    return false;
  }
  if (written != 1 && got == 0) {
    *error = "the child exited before it could run the program";
    return false;
  }
  return true;
}

void ChildProcess::Abort() {
  if (gate_fd_ >= 0) {
    close(gate_fd_);
    gate_fd_ = -1;
  }
  int status;
  std::string note;
  if (!reaped_) Reap(0, &status, &note);
}

bool ChildProcess::TryWait(int* status, std::string* note) { return Reap(WNOHANG, status, note); }

bool ChildProcess::Reap(int options, int* status, std::string* note) {
  if (reaped_) return false;
  // SIGTERM/SIGHUP stay blocked until the forwarding target is cleared, so a
  // forwarded signal can never reach a recycled pid.
  sigset_t forwarded, previous;
  sigemptyset(&forwarded);
  for (int s : kForwardedSignals) sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, &previous);
  int raw = 0;
  pid_t done;
  do {
    done = waitpid(pid_, &raw, options);
  } while (done < 0 && errno == EINTR);
  if (done == pid_ || (done < 0 && errno == ECHILD)) {
    reaped_ = true;
    g_forward_to.store(0);
  }
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (done != pid_) return false;
  if (WIFSIGNALED(raw)) {
    *status = 128 + WTERMSIG(raw);
    termination_signal_ = WTERMSIG(raw);
    *note = std::string("killed by signal ") + std::to_string(WTERMSIG(raw)) + " (" + strsignal(WTERMSIG(raw)) + ")" +
            (WCOREDUMP(raw) ? ", core dumped" : "");
  } else {
    *status = WEXITSTATUS(raw);
    note->clear();
  }
  return true;
}

}  // namespace memframe::injector
