// What memframe learns about a running process before it attaches: whether
// it may attach at all (each refusal says why and what would allow it), and
// where the process's own libc put dlopen, dlsym and dlerror. Linux only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memframe::injector {

// One line of /proc/PID/maps.
struct MappedRange {
  uint64_t start = 0, end = 0, offset = 0;
  bool executable = false;
  bool deleted = false;  // the file was removed (or replaced) since it was mapped
  std::string path;  // "" for anonymous memory, "[vdso]", "[stack]", ... (without " (deleted)")
};

std::vector<MappedRange> ReadMaps(pid_t pid);

// "" when memframe may try to attach to `pid`, else the reason it cannot:
// no such process, a zombie, another user's, already traced, under
// seccomp, Yama's ptrace_scope, a static or 32-bit program, an agent the
// process cannot see. `agent` is the agent library's path in memframe's own view.
std::string WhyCannotAttach(pid_t pid, const std::string& agent);

// What an EPERM from PTRACE_SEIZE means on this machine, and how to allow it.
std::string PtraceDeniedHelp(pid_t pid);

// The address of a dynamic symbol of the first module whose path ends in
// `library` (e.g. "libc.so.6") in the process, read from the module's own
// file and its mapping in /proc/PID/maps. 0 if not found.
uint64_t RemoteSymbol(pid_t pid, const std::vector<MappedRange>& maps, const std::string& library,
                      const char* symbol);

// The file mapped at `r` in `pid`, open for reading, or -1. The process's
// user may have replaced the file at that path since it was mapped (with a
// FIFO that never opens, a symlink to a file only root may read), so the
// kernel's own link to the mapping comes first (/proc/PID/map_files, for
// root); by path only a regular file is taken, opened without waiting.
int OpenMappedFile(pid_t pid, const MappedRange& r);

// The threads of `pid` (/proc/PID/task).
std::vector<pid_t> ListThreads(pid_t pid);

}  // namespace memframe::injector
