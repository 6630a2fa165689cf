// A module's import slots: its GOT entries, the JUMP_SLOT ones its PLT calls
// through and the GLOB_DAT ones that -fno-plt code and function pointers
// use, found through its dynamic section as the loader left it. Pointing
// them at the agent's hooks is how an import is hooked where preloading
// cannot interpose: every import at attach (got_patcher.h), an allocator's
// own API at launch (allocator_api_hooks.h).
//
// Nothing here allocates or asks the loader anything, so all of it may run
// inside dl_iterate_phdr.
#pragma once

#include <elf.h>
#include <link.h>

#include <cstddef>
#include <cstdint>

namespace memframe::agent {

struct ModuleTables {
  const Elf64_Sym* symbols = nullptr;
  const char* strings = nullptr;
  const Elf64_Rela* relocations[2] = {nullptr, nullptr};
  size_t sizes[2] = {0, 0};
  uintptr_t relro_start = 0, relro_end = 0;
  uintptr_t start = UINTPTR_MAX, end = 0;
};

// The dynamic loader and the vDSO, whose slots are never patched.
bool IsLoaderOrVdso(const dl_phdr_info* info);

// Whether dlopen has finished relocating the module. dl_iterate_phdr lists
// a module as soon as it is mapped, before the loader fills its slots: a
// slot written then would be overwritten (or, lazily bound, offset by the
// load address) by the loader, and a RELRO page made read-only under it
// would fault the loader's next write. glibc 2.35 and later answer this
// from _dl_find_object, which lists a module once relocated, before its
// constructors run; an older glibc cannot say, and every module counts as
// relocated. Lock-free: usable inside dl_iterate_phdr.
bool IsRelocated(const dl_phdr_info* info);

// The module's extent and RELRO range from its program headers; returns
// its dynamic section (null if none).
const Elf64_Dyn* ReadLayout(const dl_phdr_info* info, ModuleTables* t);

// The layout and the symbol and relocation tables; false without a
// dynamic symbol table.
bool ReadTables(const dl_phdr_info* info, ModuleTables* t);

// Whether the slot at `at` lies in a page the loader made read-only (RELRO;
// the loader leaves the last partial page of the range writable).
bool InReadOnlyPage(const ModuleTables& t, uintptr_t at);

// Writes `value` into a slot, lifting a read-only page's protection for the
// write.
bool WriteSlot(void** slot, void* value, bool read_only);

// Calls visit(name, slot) for each JUMP_SLOT and GLOB_DAT import of a named
// symbol; stops early when visit returns false.
template <typename Visit>
void ForEachImportSlot(const dl_phdr_info* info, const ModuleTables& t, Visit visit) {
  for (int table = 0; table < 2; ++table) {
    if (!t.relocations[table]) continue;
    size_t count = t.sizes[table] / sizeof(Elf64_Rela);
    for (size_t i = 0; i < count; ++i) {
      const Elf64_Rela& r = t.relocations[table][i];
      uint32_t type = ELF64_R_TYPE(r.r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      uint32_t symbol = ELF64_R_SYM(r.r_info);
      if (symbol == 0) continue;
      if (!visit(t.strings + t.symbols[symbol].st_name, reinterpret_cast<void**>(info->dlpi_addr + r.r_offset)))
        return;
    }
  }
}

}  // namespace memframe::agent
