#include "debug_files.h"

#include <elfutils/libdwelf.h>
#include <libelf.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "memframe/regular_file.h"
#include "memframe/hex.h"

namespace memframe::analysis {

namespace {

constexpr const char* kDebugRoot = "/usr/lib/debug";

std::string BuildIdOf(int fd) {
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf) return "";
  const void* bits = nullptr;
  ssize_t length = dwelf_elf_gnu_build_id(elf, &bits);
  std::string id = length > 0 ? std::string(static_cast<const char*>(bits), static_cast<size_t>(length)) : "";
  elf_end(elf);
  return id;
}

bool IsElf(int fd) {
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  bool is_elf = elf && elf_kind(elf) == ELF_K_ELF;
  if (elf) elf_end(elf);
  return is_elf;
}

// .gnu_debuglink's CRC is zlib's CRC-32 of the whole file.
uint32_t Crc32Of(int fd) {
  uLong crc = crc32(0, nullptr, 0);
  unsigned char buffer[1 << 16];
  off_t offset = 0;
  for (ssize_t n; (n = pread(fd, buffer, sizeof(buffer), offset)) > 0; offset += n)
    crc = crc32(crc, buffer, static_cast<uInt>(n));
  return static_cast<uint32_t>(crc);
}

}  // namespace

int FindDebugFile(Dwfl_Module* module, void**, const char*, Dwarf_Addr, const char* file_name,
                  const char* debuglink_file, GElf_Word debuglink_crc, char** debuginfo_file_name) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  int id_length = dwfl_module_build_id(module, &bits, &vaddr);
  const std::string id = id_length > 0 ? std::string(reinterpret_cast<const char*>(bits), id_length) : "";
  // libdwfl asks for a dwz file with its .gnu_debugaltlink name and no CRC;
  // its build ID is not the module's.
  const bool dwz = debuglink_file && debuglink_crc == 0;
  const std::string file = file_name ? file_name : "";
  const size_t slash = file.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
  const std::string name = debuglink_file ? debuglink_file : file.substr(slash + 1) + ".debug";

  std::vector<std::string> candidates;
  if (!dwz && id.size() > 1) {
    const std::string hex = HexBytes(id);
    candidates.push_back(std::string(kDebugRoot) + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug");
  }
  if (name.empty()) {
  } else if (name[0] == '/') {
    candidates.push_back(name);
  } else if (!file.empty()) {
    candidates.push_back(dir + "/" + name);
    candidates.push_back(dir + "/.debug/" + name);
    candidates.push_back(std::string(kDebugRoot) + dir + "/" + name);
  }
  for (const std::string& path : candidates) {
    if (path == file) continue;
    std::string why;
    int fd = wire::OpenRegularFile(path, &why);
    if (fd < 0) continue;
    bool fits = dwz                ? IsElf(fd)
                : !id.empty()      ? BuildIdOf(fd) == id
                : debuglink_crc    ? Crc32Of(fd) == debuglink_crc
                                   : IsElf(fd);
    if (fits) {
      *debuginfo_file_name = strdup(path.c_str());
      return fd;
    }
    close(fd);
  }
  return -1;
}

int FindNoElf(Dwfl_Module*, void**, const char*, Dwarf_Addr, char**, Elf**) { return -1; }

}  // namespace memframe::analysis
