#include "program_check.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "host_elf.h"

namespace memframe::injector {

namespace {

enum class ExecutableKind { kDynamicElf, kStaticElf, kForeignElf, kScript, kUnreadable, kOther };

bool IsExecutableFile(const std::string& path, int* error_number) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    *error_number = errno;
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error_number = EISDIR;
    return false;
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    *error_number = EACCES;
    return false;
  }
  return true;
}

struct ElfTarget {
  uint8_t elf_class = 0;  // ELFCLASS32 / ELFCLASS64
  uint16_t machine = 0;   // e_machine
};

// What this memframe (and so the agent, built with it) runs as.
const ElfTarget& OwnElfTarget() {
  static const ElfTarget own = [] {
    HostElf self("/proc/self/exe");
    return ElfTarget{self.elf_class(), self.machine()};
  }();
  return own;
}

// The dynamic loader (which handles LD_PRELOAD) runs only for ELF files with
// a PT_INTERP program header; static and static-pie programs have none. A
// program of another class or machine gets another loader, which cannot
// load our agent.
ExecutableKind Classify(const std::string& path, ElfTarget* elf) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ExecutableKind::kUnreadable;
  char magic[2] = {};
  const ssize_t got = pread(fd, magic, sizeof magic, 0);
  close(fd);
  if (got == 2 && magic[0] == '#' && magic[1] == '!') return ExecutableKind::kScript;
  HostElf file(path);
  if (!file.valid()) return ExecutableKind::kOther;
  *elf = {file.elf_class(), file.machine()};
  const ElfTarget& own = OwnElfTarget();
  if (own.elf_class != 0 && (elf->elf_class != own.elf_class || elf->machine != own.machine))
    return ExecutableKind::kForeignElf;
  return file.HasInterpreter() ? ExecutableKind::kDynamicElf : ExecutableKind::kStaticElf;
}

}  // namespace

bool ResolveProgram(const std::string& program, std::string* path, std::string* error, int* why) {
  if (why) *why = ENOENT;
  if (program.empty()) {
    *error = "no program given";
    return false;
  }
  int error_number = 0;
  if (program.find('/') != std::string::npos) {
    if (IsExecutableFile(program, &error_number)) {
      *path = program;
      return true;
    }
    *error = program + ": " + strerror(error_number);
    if (why) *why = error_number;
    return false;
  }
  const char* env_path = getenv("PATH");
  std::string search = env_path ? env_path : "/usr/local/bin:/usr/bin:/bin";
  // Like execvp: the first executable match wins; a match that cannot be
  // executed is reported only if nothing better is found.
  std::string denied;
  size_t start = 0;
  for (;;) {
    size_t colon = search.find(':', start);
    std::string dir = search.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (IsExecutableFile(candidate, &error_number)) {
      *path = candidate;
      return true;
    }
    if (error_number != ENOENT && error_number != ENOTDIR && denied.empty()) denied = candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  *error = denied.empty() ? program + ": command not found" : denied + ": permission denied";
  if (why && !denied.empty()) *why = EACCES;
  return false;
}

std::string WhyAgentCannotLoad(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return path + ": " + strerror(errno);
  if (st.st_mode & (S_ISUID | S_ISGID)) {
    return path + " is set" + std::string(st.st_mode & S_ISUID ? "uid" : "gid") +
           "; the loader ignores LD_PRELOAD for setuid programs";
  }
  ElfTarget elf;
  switch (Classify(path, &elf)) {
    case ExecutableKind::kDynamicElf:
    case ExecutableKind::kScript:
    case ExecutableKind::kUnreadable:  // execute-only: exec may still work, do not refuse on a guess
      return "";
    case ExecutableKind::kStaticElf:
      return path + " is statically linked; LD_PRELOAD cannot load the agent into a static program";
    case ExecutableKind::kForeignElf:
      if (elf.elf_class != OwnElfTarget().elf_class) {
        const char* bits = elf.elf_class == ELFCLASS32 ? "32" : "64";
        const char* own_bits = OwnElfTarget().elf_class == ELFCLASS32 ? "32" : "64";
        return path + " is a " + bits + "-bit program; the memframe agent is " + own_bits +
               "-bit and cannot be loaded into it";
      }
      return path + " is built for another machine (ELF machine " + std::to_string(elf.machine) +
             "); the memframe agent cannot be loaded into it";
    case ExecutableKind::kOther:
      break;
  }
  return path + " is neither an ELF program nor a #! script";
}

}  // namespace memframe::injector
