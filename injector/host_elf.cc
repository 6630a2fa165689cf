#include "host_elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

namespace memframe::injector {

HostElf::HostElf(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) { Read(); }

HostElf::HostElf(int owned_fd) : fd_(owned_fd) { Read(); }

void HostElf::Read() {
  if (fd_ < 0 || elf_version(EV_CURRENT) == EV_NONE) return;
  elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  GElf_Ehdr header;
  if (!elf_ || elf_kind(elf_) != ELF_K_ELF || !gelf_getehdr(elf_, &header)) return;
  elf_class_ = static_cast<uint8_t>(gelf_getclass(elf_));
  machine_ = header.e_machine;
}

HostElf::~HostElf() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

size_t HostElf::ProgramHeaderCount() const {
  size_t count = 0;
  if (!valid() || elf_getphdrnum(elf_, &count) != 0) return 0;
  return count;
}

bool HostElf::HasInterpreter() const {
  for (size_t i = 0, n = ProgramHeaderCount(); i < n; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf_, static_cast<int>(i), &header) && header.p_type == PT_INTERP) return true;
  }
  return false;
}

uint64_t HostElf::FirstLoadAddress() const {
  for (size_t i = 0, n = ProgramHeaderCount(); i < n; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf_, static_cast<int>(i), &header) && header.p_type == PT_LOAD && header.p_offset == 0)
      return header.p_vaddr;
  }
  return 0;
}

void HostElf::ForEachDefinedFunction(
    bool dynamic_only, const std::function<bool(std::string_view, uint64_t, bool)>& visit) const {
  if (!valid()) return;
  for (Elf_Scn* section = elf_nextscn(elf_, nullptr); section; section = elf_nextscn(elf_, section)) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header)) continue;
    if (header.sh_type != SHT_DYNSYM && (dynamic_only || header.sh_type != SHT_SYMTAB)) continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    if (!data || header.sh_entsize == 0) continue;
    const size_t count = header.sh_size / header.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym symbol;
      if (!gelf_getsym(data, static_cast<int>(i), &symbol)) break;
      const int type = GELF_ST_TYPE(symbol.st_info), binding = GELF_ST_BIND(symbol.st_info);
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_value == 0 || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
          (binding != STB_GLOBAL && binding != STB_WEAK))
        continue;
      const char* name = elf_strptr(elf_, header.sh_link, symbol.st_name);
      if (!name || !*name) continue;
      if (!visit(name, symbol.st_value, type == STT_GNU_IFUNC)) return;
    }
  }
}

}  // namespace memframe::injector
