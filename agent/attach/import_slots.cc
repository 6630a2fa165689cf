#include "attach/import_slots.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

// Weak: glibc 2.35 added it, and the agent must still load on an older one.
#pragma weak _dl_find_object

namespace memframe::agent {

bool IsLoaderOrVdso(const dl_phdr_info* info) {
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  return strstr(name, "/ld-linux") != nullptr || strstr(name, "linux-vdso") != nullptr ||
         strstr(name, "linux-gate") != nullptr;
}

bool IsRelocated(const dl_phdr_info* info) {
  if (!&_dl_find_object) return true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const Elf64_Phdr& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    dl_find_object found;
    return _dl_find_object(reinterpret_cast<void*>(info->dlpi_addr + ph.p_vaddr), &found) == 0;
  }
  return false;
}

const Elf64_Dyn* ReadLayout(const dl_phdr_info* info, ModuleTables* t) {
  const Elf64_Dyn* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const Elf64_Phdr& ph = info->dlpi_phdr[i];
    uintptr_t at = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const Elf64_Dyn*>(at);
    if (ph.p_type == PT_GNU_RELRO) {
      t->relro_start = at;
      t->relro_end = at + ph.p_memsz;
    }
    if (ph.p_type == PT_LOAD) {
      if (at < t->start) t->start = at;
      if (at + ph.p_memsz > t->end) t->end = at + ph.p_memsz;
    }
  }
  return dynamic;
}

bool ReadTables(const dl_phdr_info* info, ModuleTables* t) {
  const Elf64_Dyn* dynamic = ReadLayout(info, t);
  if (!dynamic) return false;
  // The loader relocated these addresses in place, except in a read-only
  // dynamic section.
  auto address = [&](uint64_t value) { return value < info->dlpi_addr ? info->dlpi_addr + value : value; };
  for (const Elf64_Dyn* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: t->symbols = reinterpret_cast<const Elf64_Sym*>(address(d->d_un.d_ptr)); break;
      case DT_STRTAB: t->strings = reinterpret_cast<const char*>(address(d->d_un.d_ptr)); break;
      case DT_JMPREL: t->relocations[0] = reinterpret_cast<const Elf64_Rela*>(address(d->d_un.d_ptr)); break;
      case DT_PLTRELSZ: t->sizes[0] = d->d_un.d_val; break;
      case DT_RELA: t->relocations[1] = reinterpret_cast<const Elf64_Rela*>(address(d->d_un.d_ptr)); break;
      case DT_RELASZ: t->sizes[1] = d->d_un.d_val; break;
      default: break;
    }
  }
  return t->symbols && t->strings;
}

bool InReadOnlyPage(const ModuleTables& t, uintptr_t at) {
  const auto page_mask = ~static_cast<uintptr_t>(sysconf(_SC_PAGESIZE) - 1);
  return at >= (t.relro_start & page_mask) && at < (t.relro_end & page_mask);
}

bool WriteSlot(void** slot, void* value, bool read_only) {
  if (!read_only) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return true;
  }
  long page_size = sysconf(_SC_PAGESIZE);
  auto page = reinterpret_cast<uintptr_t>(slot) & ~static_cast<uintptr_t>(page_size - 1);
  if (mprotect(reinterpret_cast<void*>(page), static_cast<size_t>(page_size), PROT_READ | PROT_WRITE) != 0)
    return false;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  mprotect(reinterpret_cast<void*>(page), static_cast<size_t>(page_size), PROT_READ);
  return true;
}

}  // namespace memframe::agent
