#include "own_allocator_check.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace memframe::injector {

namespace {

// Names that show which allocator was linked in. jemalloc built without a
// prefix (as Debian's libjemalloc.a is) defines malloc itself plus mallocx.
struct AllocatorSignature {
  std::string_view symbol;
  std::string_view allocator;
};
constexpr AllocatorSignature kSignatures[] = {
    {"mallocx", "jemalloc"}, {"je_malloc", "jemalloc"}, {"je_mallocx", "jemalloc"},
    {"tc_malloc", "tcmalloc"}, {"mi_malloc", "mimalloc"},
};

bool IsMallocEntry(std::string_view name) {
  return name == "malloc" || name == "free" || name == "calloc" || name == "realloc";
}

bool IsOperatorNew(std::string_view name) { return name == "_Znwm" || name == "_Znam"; }

struct Findings {
  bool defines_malloc = false;
  bool defines_new = false;
  std::string_view allocator;
  std::string_view allocator_symbol;
};

// The whole file mapped read-only; every offset read from it is checked
// against its size, so a damaged ELF yields no findings, never a crash.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
      void* data = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (data != MAP_FAILED) {
        data_ = static_cast<const uint8_t*>(data);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // A pointer to `count` objects of T at `offset`, or null if out of bounds.
  template <typename T>
  const T* At(uint64_t offset, uint64_t count = 1) const {
    if (!data_ || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

void ScanSymbols(const MappedFile& file, const Elf64_Shdr& symbols, const Elf64_Shdr& strings, Findings* found) {
  if (symbols.sh_entsize != sizeof(Elf64_Sym)) return;
  const Elf64_Sym* syms = file.At<Elf64_Sym>(symbols.sh_offset, symbols.sh_size / sizeof(Elf64_Sym));
  const char* names = file.At<char>(strings.sh_offset, strings.sh_size);
  if (!syms || !names) return;
  for (uint64_t i = 0; i < symbols.sh_size / sizeof(Elf64_Sym); ++i) {
    const Elf64_Sym& sym = syms[i];
    int type = ELF64_ST_TYPE(sym.st_info), bind = ELF64_ST_BIND(sym.st_info);
    if (sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
        (bind != STB_GLOBAL && bind != STB_WEAK) || sym.st_name >= strings.sh_size)
      continue;
    std::string_view name(names + sym.st_name, strnlen(names + sym.st_name, strings.sh_size - sym.st_name));
    if (IsMallocEntry(name)) found->defines_malloc = true;
    if (IsOperatorNew(name)) found->defines_new = true;
    for (const AllocatorSignature& signature : kSignatures) {
      if (name == signature.symbol && found->allocator.empty()) {
        found->allocator = signature.allocator;
        found->allocator_symbol = signature.symbol;
      }
    }
  }
}

// Reads .symtab (absent once stripped) and .dynsym (always there in a
// dynamic program). Only native 64-bit ELF: anything else was refused before.
Findings Scan(const MappedFile& file) {
  Findings found;
  const Elf64_Ehdr* header = file.At<Elf64_Ehdr>(0);
  if (!header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_ident[EI_DATA] != ELFDATA2LSB || header->e_shentsize != sizeof(Elf64_Shdr))
    return found;
  const Elf64_Shdr* sections = file.At<Elf64_Shdr>(header->e_shoff, header->e_shnum);
  if (!sections) return found;
  for (uint16_t i = 0; i < header->e_shnum; ++i) {
    const Elf64_Shdr& section = sections[i];
    if ((section.sh_type == SHT_SYMTAB || section.sh_type == SHT_DYNSYM) && section.sh_link < header->e_shnum)
      ScanSymbols(file, section, sections[section.sh_link], &found);
  }
  return found;
}

}  // namespace

std::string OwnAllocatorWarning(const std::string& path) {
  MappedFile file(path);
  Findings found = Scan(file);
  std::string linked = found.allocator.empty() ? "" : "statically linked " + std::string(found.allocator);
  if (found.defines_malloc) {
    return path + " defines its own malloc" + (linked.empty() ? "" : " (" + linked + ")") +
           ": allocations through it are not recorded; the loader binds malloc to it before any preloaded "
           "library, so memframe sees only the memory it maps (mmap)";
  }
  if (!found.allocator.empty()) {
    return path + " contains a " + linked + " (" + std::string(found.allocator_symbol) +
           "): allocations through its own API are not recorded, only those through malloc and new";
  }
  if (found.defines_new) {
    return path + " defines its own operator new: allocations through it are recorded only where it calls "
                  "malloc, as malloc";
  }
  return "";
}

}  // namespace memframe::injector
