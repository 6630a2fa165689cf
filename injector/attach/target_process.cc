#include "attach/target_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "program_check.h"
#include "host_elf.h"

namespace memframe::injector {

namespace {

std::string ProcPath(pid_t pid, const char* what) { return "/proc/" + std::to_string(pid) + "/" + what; }

// The value of a "Key:\tvalue" line of a /proc status file, or "".
std::string FieldOf(const std::string& status_path, const std::string& key) {
  std::ifstream in(status_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      size_t start = line.find_first_not_of(" \t", key.size() + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

std::string StatusField(pid_t pid, const std::string& key) { return FieldOf(ProcPath(pid, "status"), key); }

// A thread under seccomp may be killed by a system call the injection makes
// (openat and mmap while dlopen loads the agent, then the agent's socket,
// thread and mappings), and only CAP_SYS_ADMIN may read a filter to prove
// they are allowed: such a process is refused before it is touched. "" if
// no thread is under seccomp.
std::string SeccompRefusal(pid_t pid, const std::string& who) {
  for (pid_t tid : ListThreads(pid)) {
    std::string mode =
        FieldOf(ProcPath(pid, "task/") + std::to_string(tid) + "/status", "Seccomp");
    if (mode.empty() || mode == "0") continue;  // "" on kernels without seccomp
    std::string thread = tid == pid ? "" : " (its thread " + std::to_string(tid) + ")";
    std::string under = mode == "1" ? "seccomp's strict mode (only read, write, exit and sigreturn)" : "a seccomp filter";
    return who + thread + " runs under " + under +
           ": loading the agent makes system calls (openat and mmap in dlopen, then the agent's socket, thread and "
           "mappings) that the filter may answer by killing the process, and memframe cannot read the filter to "
           "know, so it does not attach. Record the program from its start instead (`memframe run`: the agent is "
           "loaded before the program installs its filter), or run it without its sandbox";
  }
  return "";
}

std::string CommandName(pid_t pid) {
  std::ifstream in(ProcPath(pid, "comm"));
  std::string name;
  std::getline(in, name);
  return name.empty() ? "?" : name;
}

// -1 when Yama is not there.
int PtraceScope() {
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  int scope = -1;
  if (!(in >> scope)) return -1;
  return scope;
}

bool HaveCapSysPtrace() {
  std::string caps = StatusField(getpid(), "CapEff");
  if (caps.empty()) return false;
  unsigned long long mask = strtoull(caps.c_str(), nullptr, 16);
  return (mask >> CAP_SYS_PTRACE) & 1;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::vector<MappedRange> ReadMaps(pid_t pid) {
  std::vector<MappedRange> ranges;
  std::ifstream in(ProcPath(pid, "maps"));
  std::string line;
  while (std::getline(in, line)) {
    MappedRange r;
    char perms[8] = {};
    unsigned long long start = 0, end = 0, offset = 0;
    int path_at = 0;
    if (sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset, &path_at) < 4) continue;
    r.start = start;
    r.end = end;
    r.offset = offset;
    r.executable = perms[2] == 'x';
    if (path_at > 0 && static_cast<size_t>(path_at) < line.size()) r.path = line.substr(static_cast<size_t>(path_at));
    static const std::string kDeleted = " (deleted)";
    if (r.path.size() > kDeleted.size() && r.path.compare(r.path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
      r.path.resize(r.path.size() - kDeleted.size());
      r.deleted = true;
    }
    ranges.push_back(r);
  }
  return ranges;
}

std::vector<pid_t> ListThreads(pid_t pid) {
  std::vector<pid_t> threads;
  DIR* dir = opendir(ProcPath(pid, "task").c_str());
  if (!dir) return threads;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long tid = strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && tid > 0) threads.push_back(static_cast<pid_t>(tid));
  }
  closedir(dir);
  return threads;
}

std::string PtraceDeniedHelp(pid_t pid) {
  int scope = PtraceScope();
  std::string about = "the system does not let memframe trace process " + std::to_string(pid);
  if (scope == 1)
    return about + ": kernel.yama.ptrace_scope is 1 (only a parent may trace its children). Allow it with "
                   "`sudo sysctl kernel.yama.ptrace_scope=0` (until reboot), or give memframe the capability: "
                   "`sudo setcap cap_sys_ptrace=ep $(command -v memframe)`, or run it with sudo";
  if (scope == 2)
    return about + ": kernel.yama.ptrace_scope is 2 (only CAP_SYS_PTRACE may trace). Give memframe the capability "
                   "(`sudo setcap cap_sys_ptrace=ep $(command -v memframe)`), run it with sudo, or set "
                   "`sudo sysctl kernel.yama.ptrace_scope=0`";
  if (scope == 3)
    return about + ": kernel.yama.ptrace_scope is 3 (ptrace is off until the next reboot; the setting cannot be "
                   "lowered without one)";
  return about + " (ptrace was refused: a security module, seccomp, or a process that may not be traced)";
}

std::string WhyCannotAttach(pid_t pid, const std::string& agent) {
  std::string who = "process " + std::to_string(pid);
  if (pid <= 0) return "'" + std::to_string(pid) + "' is not a process id";
  if (pid == getpid()) return "memframe cannot attach to itself";
  if (kill(pid, 0) != 0 && errno == ESRCH) return "no process " + std::to_string(pid);
  std::string state = StatusField(pid, "State");
  if (state.empty()) return "no process " + std::to_string(pid);
  if (state[0] == 'Z' || state[0] == 'X') return who + " has exited (it is a zombie)";
  std::string name = CommandName(pid);
  who += " (" + name + ")";
  // A stopped process runs no thread to load the agent with: the attach
  // would wait for a connection that cannot come.
  if (state[0] == 'T')
    return who + " is stopped (SIGSTOP or job control): continue it first (kill -CONT " + std::to_string(pid) +
           "), as memframe loads its agent by running one of its threads";
  // Uid: real, effective, saved, fs. Tracing needs all of them to be ours.
  std::istringstream uids(StatusField(pid, "Uid"));
  uid_t me = geteuid();
  bool root_like = me == 0 || HaveCapSysPtrace();
  for (long uid; uids >> uid;) {
    if (static_cast<uid_t>(uid) != me && !root_like)
      return who + " belongs to another user (uid " + std::to_string(uid) +
             "); memframe attaches only to your own processes, unless it runs as root";
  }
  std::string tracer = StatusField(pid, "TracerPid");
  if (!tracer.empty() && tracer != "0") {
    pid_t tracer_pid = static_cast<pid_t>(atoi(tracer.c_str()));
    const std::string tracer_name = CommandName(tracer_pid);
    if (tracer_name == "memframe")
      return who + " is being attached to by another memframe (process " + tracer +
             ") right now; one memframe records a process at a time (`memframe detach " + std::to_string(pid) +
             "` ends that recording)";
    return who + " is already traced by process " + tracer + " (" + tracer_name +
           "): detach the debugger first (a process has one tracer at a time)";
  }
  std::string seccomp = SeccompRefusal(pid, who);
  if (!seccomp.empty()) return seccomp;
  int scope = PtraceScope();
  if (scope >= 3 || (scope == 2 && !HaveCapSysPtrace())) return PtraceDeniedHelp(pid);
  std::string exe = ProcPath(pid, "exe");
  char target[4096];
  ssize_t n = readlink(exe.c_str(), target, sizeof target - 1);
  if (n <= 0) return "cannot read " + exe + " (" + strerror(errno) + ")";
  std::string refusal = WhyAgentCannotLoad(exe);
  if (!refusal.empty()) {
    std::string program(target, static_cast<size_t>(n));
    size_t at = refusal.find(exe);
    if (at != std::string::npos) refusal.replace(at, exe.size(), program);
    return "cannot attach to " + who + ": " + refusal;
  }
  // The agent is loaded by the process itself, through its own view of the
  // file system (a container has another one).
  std::string seen = ProcPath(pid, "root") + agent;
  if (access(seen.c_str(), R_OK) != 0)
    return "the agent " + agent + " is not visible inside " + who +
           " (it runs in another mount namespace, such as a container); install memframe inside it";
  return "";
}

int OpenMappedFile(pid_t pid, const MappedRange& r) {
  char range[64];
  snprintf(range, sizeof range, "map_files/%llx-%llx", static_cast<unsigned long long>(r.start),
           static_cast<unsigned long long>(r.end));
  int fd = open(ProcPath(pid, range).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 || r.deleted) return fd;  // what is at the path now is not what was mapped
  // The file as the process sees it (a container has another view), then
  // as memframe does.
  for (const std::string& path : {ProcPath(pid, "root") + r.path, r.path}) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) continue;
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) return fd;
    close(fd);
    return -1;
  }
  return -1;
}

uint64_t RemoteSymbol(pid_t pid, const std::vector<MappedRange>& maps, const std::string& library,
                      const char* symbol) {
  for (const MappedRange& r : maps) {
    if (r.offset != 0 || !EndsWith(r.path, "/" + library)) continue;
    int fd = OpenMappedFile(pid, r);
    if (fd < 0) return 0;
    HostElf file(fd);
    uint64_t value = 0;
    file.ForEachDefinedFunction(/*dynamic_only=*/true, [&](std::string_view name, uint64_t address, bool) {
      if (name != symbol) return true;
      value = address;
      return false;
    });
    const uint64_t first_load = file.FirstLoadAddress();
    if (value == 0) return 0;
    return r.start - (first_load & ~uint64_t{0xfff}) + value;
  }
  return 0;
}

}  // namespace memframe::injector
