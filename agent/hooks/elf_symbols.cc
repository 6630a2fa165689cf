#include "hooks/elf_symbols.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace memframe::agent {

namespace {

struct Query {
  const char* library;
  const char* symbol;
  void* result;
};

bool EndsWith(const char* s, const char* suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

uint32_t GnuHash(const char* name) {
  uint32_t h = 5381;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(name); *p; ++p) h = h * 33 + *p;
  return h;
}

// The loader rewrites most d_ptr entries to absolute addresses; the vDSO and
// some loaders do not. Either way, return an absolute address.
uintptr_t Absolute(ElfW(Addr) value, uintptr_t base) { return value < base ? base + value : value; }

}  // namespace

void* LookUpDefinedSymbol(const dl_phdr_info* info, const char* symbol) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dynamic) return nullptr;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* gnu_hash = nullptr;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    uintptr_t value = Absolute(d->d_un.d_ptr, info->dlpi_addr);
    if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(value);
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(value);
    if (d->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const uint32_t*>(value);
  }
  if (!symtab || !strtab || !gnu_hash) return nullptr;
  // DT_GNU_HASH layout: nbuckets, symoffset, bloom words, bloom shift,
  // bloom[], buckets[], chain[] (one hash per symbol from symoffset on).
  const uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom_words = gnu_hash[2];
  const auto* buckets = reinterpret_cast<const uint32_t*>(
      reinterpret_cast<const ElfW(Addr)*>(gnu_hash + 4) + bloom_words);
  const uint32_t* chain = buckets + nbuckets;
  const uint32_t hash = GnuHash(symbol);
  for (uint32_t index = buckets[hash % nbuckets]; index >= symoffset && index != 0; ++index) {
    const uint32_t chain_hash = chain[index - symoffset];
    const ElfW(Sym)& sym = symtab[index];
    if ((chain_hash | 1) == (hash | 1) && strcmp(strtab + sym.st_name, symbol) == 0 && sym.st_value != 0 &&
        sym.st_shndx != SHN_UNDEF) {
      return reinterpret_cast<void*>(info->dlpi_addr + sym.st_value);
    }
    if (chain_hash & 1) break;  // end of this bucket's chain
  }
  return nullptr;
}

namespace {

int Visit(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<Query*>(data);
  if (!info->dlpi_name || !EndsWith(info->dlpi_name, q->library)) return 0;
  q->result = LookUpDefinedSymbol(info, q->symbol);
  return q->result != nullptr;
}

}  // namespace

void* FindLibrarySymbol(const char* library, const char* symbol) {
  Query q{library, symbol, nullptr};
  dl_iterate_phdr(Visit, &q);
  return q.result;
}

}  // namespace memframe::agent
