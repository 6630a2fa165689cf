#include "program_check.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

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

// Reads an unsigned field of `size` bytes in the file's byte order.
uint64_t Field(const uint8_t* p, size_t size, bool big_endian) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i) v |= static_cast<uint64_t>(p[big_endian ? size - 1 - i : i]) << (8 * i);
  return v;
}

bool ReadAt(int fd, void* out, size_t size, uint64_t offset) {
  return pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
}

struct ElfTarget {
  uint8_t elf_class = 0;  // ELFCLASS32 / ELFCLASS64
  uint16_t machine = 0;   // e_machine, in the file's byte order
};

// The class and machine of an ELF file; false if it is not one.
bool ReadElfTarget(int fd, ElfTarget* target) {
  uint8_t header[sizeof(Elf64_Ehdr)] = {};
  if (pread(fd, header, sizeof(header), 0) < static_cast<ssize_t>(sizeof(Elf32_Ehdr)) ||
      memcmp(header, ELFMAG, SELFMAG) != 0)
    return false;
  target->elf_class = header[EI_CLASS];
  // e_machine sits at the same offset in both classes.
  target->machine = static_cast<uint16_t>(Field(header + offsetof(Elf64_Ehdr, e_machine), 2,
                                                header[EI_DATA] == ELFDATA2MSB));
  return true;
}

// What this memframe (and so the agent, built with it) runs as.
const ElfTarget& OwnElfTarget() {
  static const ElfTarget own = [] {
    ElfTarget target;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ReadElfTarget(fd, &target);
      close(fd);
    }
    return target;
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
  uint8_t ident[EI_NIDENT] = {};
  ssize_t got = pread(fd, ident, sizeof(ident), 0);
  ExecutableKind kind = ExecutableKind::kOther;
  if (got >= 2 && ident[0] == '#' && ident[1] == '!') {
    kind = ExecutableKind::kScript;
  } else if (got == EI_NIDENT && memcmp(ident, ELFMAG, SELFMAG) == 0 &&
             (ident[EI_CLASS] == ELFCLASS32 || ident[EI_CLASS] == ELFCLASS64)) {
    bool is64 = ident[EI_CLASS] == ELFCLASS64;
    bool big = ident[EI_DATA] == ELFDATA2MSB;
    const ElfTarget& own = OwnElfTarget();
    if (ReadElfTarget(fd, elf) && own.elf_class != 0 &&
        (elf->elf_class != own.elf_class || elf->machine != own.machine)) {
      close(fd);
      return ExecutableKind::kForeignElf;
    }
    uint8_t header[sizeof(Elf64_Ehdr)] = {};
    size_t header_size = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    if (ReadAt(fd, header, header_size, 0)) {
      auto field = [&](size_t offset64, size_t offset32, size_t size64, size_t size32) {
        return is64 ? Field(header + offset64, size64, big) : Field(header + offset32, size32, big);
      };
      uint64_t phoff = field(offsetof(Elf64_Ehdr, e_phoff), offsetof(Elf32_Ehdr, e_phoff), 8, 4);
      size_t phentsize = field(offsetof(Elf64_Ehdr, e_phentsize), offsetof(Elf32_Ehdr, e_phentsize), 2, 2);
      size_t phnum = field(offsetof(Elf64_Ehdr, e_phnum), offsetof(Elf32_Ehdr, e_phnum), 2, 2);
      // p_type is the first 4 bytes of a program header in both classes.
      if (phentsize >= 4 && phnum > 0 && phnum != PN_XNUM) {
        std::vector<uint8_t> table(phentsize * phnum);
        if (ReadAt(fd, table.data(), table.size(), phoff)) {
          kind = ExecutableKind::kStaticElf;
          for (size_t i = 0; i < phnum; ++i) {
            if (Field(table.data() + i * phentsize, 4, big) == PT_INTERP) kind = ExecutableKind::kDynamicElf;
          }
        }
      } else if (phnum == 0) {
        kind = ExecutableKind::kStaticElf;
      } else {
        kind = ExecutableKind::kDynamicElf;  // PN_XNUM: too unusual to refuse on a guess
      }
    }
  }
  close(fd);
  return kind;
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
