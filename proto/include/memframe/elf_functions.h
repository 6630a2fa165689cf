// The functions an ELF file defines, read from its own symbol tables
// (.symtab, absent once stripped, and .dynsym), and the allocators whose API
// names show which one a program linked. Shared by `memframe run`, which
// warns before launching a program that brings its own malloc, and the
// agent, which hooks that malloc at its entry: so both name it alike.
// Allocation-free (open, mmap, no std::string): the agent calls it in its
// constructor. Every offset read from the file is checked against its size,
// so a damaged ELF yields no symbols, never a crash. Native 64-bit ELF only.
#pragma once

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace memframe::wire {

// Names that show which allocator was linked in. jemalloc built without a
// prefix (as Debian's libjemalloc.a is) defines malloc itself plus mallocx.
struct AllocatorSignature {
  std::string_view symbol;
  std::string_view allocator;
};
inline constexpr AllocatorSignature kAllocatorSignatures[] = {
    {"mallocx", "jemalloc"}, {"je_malloc", "jemalloc"}, {"je_mallocx", "jemalloc"},
    {"tc_malloc", "tcmalloc"}, {"mi_malloc", "mimalloc"},
};

// The functions of an allocator's own API whose calls the agent records
// (agent/hooks/allocator_api_hooks.h, in its order): a library's through
// hooks of the same names, an executable's own by entry patch. Not
// tcmalloc's tc_*, nor mimalloc's heaps (mi_heap_*).
inline constexpr AllocatorSignature kHookedAllocatorApi[] = {
    {"mi_malloc", "mimalloc"}, {"mi_zalloc", "mimalloc"}, {"mi_malloc_small", "mimalloc"},
    {"mi_zalloc_small", "mimalloc"}, {"mi_valloc", "mimalloc"}, {"mi_pvalloc", "mimalloc"}, {"mi_new", "mimalloc"},
    {"mi_new_nothrow", "mimalloc"}, {"mi_calloc", "mimalloc"}, {"mi_mallocn", "mimalloc"}, {"mi_new_n", "mimalloc"},
    {"mi_malloc_aligned", "mimalloc"}, {"mi_zalloc_aligned", "mimalloc"}, {"mi_new_aligned", "mimalloc"},
    {"mi_new_aligned_nothrow", "mimalloc"}, {"mi_aligned_alloc", "mimalloc"}, {"mi_memalign", "mimalloc"},
    {"mi_calloc_aligned", "mimalloc"}, {"mi_posix_memalign", "mimalloc"}, {"mi_realloc", "mimalloc"},
    {"mi_new_realloc", "mimalloc"}, {"mi_reallocn", "mimalloc"}, {"mi_reallocarray", "mimalloc"},
    {"mi_new_reallocn", "mimalloc"}, {"mi_realloc_aligned", "mimalloc"}, {"mi_free", "mimalloc"},
    {"mi_cfree", "mimalloc"}, {"mi_free_size", "mimalloc"}, {"mi_free_aligned", "mimalloc"},
    {"mi_free_size_aligned", "mimalloc"},
    {"mallocx", "jemalloc"}, {"rallocx", "jemalloc"}, {"xallocx", "jemalloc"}, {"sdallocx", "jemalloc"},
    {"dallocx", "jemalloc"},
    // A jemalloc built with the je_ prefix (not Debian's): only an
    // executable's own definitions are patched.
    {"je_mallocx", "jemalloc"}, {"je_rallocx", "jemalloc"}, {"je_xallocx", "jemalloc"},
    {"je_sdallocx", "jemalloc"}, {"je_dallocx", "jemalloc"},
};

inline bool IsHookedAllocatorApi(std::string_view symbol) {
  for (const AllocatorSignature& s : kHookedAllocatorApi)
    if (s.symbol == symbol) return true;
  return false;
}

// The signature `symbol` is (names kept in the table's own storage), or null.
inline const AllocatorSignature* FindAllocatorSignature(std::string_view symbol) {
  for (const AllocatorSignature& s : kAllocatorSignatures)
    if (s.symbol == symbol) return &s;
  return nullptr;
}

// The whole file mapped read-only.
class MappedElfFile {
 public:
  explicit MappedElfFile(const char* path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* data = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (data != MAP_FAILED) {
        data_ = static_cast<const uint8_t*>(data);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedElfFile() {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedElfFile(const MappedElfFile&) = delete;
  MappedElfFile& operator=(const MappedElfFile&) = delete;

  // A pointer to `count` objects of T at `offset`, or null if out of bounds.
  template <typename T>
  const T* At(uint64_t offset, uint64_t count = 1) const {
    if (!data_ || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Calls visit(name, value, indirect) for every global or weak function the
// file defines, once per symbol table that lists it; `value` is its
// st_value (add the load bias of a position-independent file), which for
// an indirect function (STT_GNU_IFUNC) is its resolver.
template <typename Visit>
void ForEachDefinedFunction(const MappedElfFile& file, Visit visit) {
  const Elf64_Ehdr* header = file.At<Elf64_Ehdr>(0);
  if (!header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_ident[EI_DATA] != ELFDATA2LSB || header->e_shentsize != sizeof(Elf64_Shdr))
    return;
  const Elf64_Shdr* sections = file.At<Elf64_Shdr>(header->e_shoff, header->e_shnum);
  if (!sections) return;
  for (uint16_t s = 0; s < header->e_shnum; ++s) {
    const Elf64_Shdr& symbols = sections[s];
    if ((symbols.sh_type != SHT_SYMTAB && symbols.sh_type != SHT_DYNSYM) || symbols.sh_link >= header->e_shnum ||
        symbols.sh_entsize != sizeof(Elf64_Sym))
      continue;
    const Elf64_Shdr& strings = sections[symbols.sh_link];
    const uint64_t count = symbols.sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym* syms = file.At<Elf64_Sym>(symbols.sh_offset, count);
    const char* names = file.At<char>(strings.sh_offset, strings.sh_size);
    if (!syms || !names) continue;
    for (uint64_t i = 0; i < count; ++i) {
      const Elf64_Sym& sym = syms[i];
      int type = ELF64_ST_TYPE(sym.st_info), bind = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
          (bind != STB_GLOBAL && bind != STB_WEAK) || sym.st_name >= strings.sh_size)
        continue;
      visit(std::string_view(names + sym.st_name, strnlen(names + sym.st_name, strings.sh_size - sym.st_name)),
            sym.st_value, type == STT_GNU_IFUNC);
    }
  }
}

}  // namespace memframe::wire
