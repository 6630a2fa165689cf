// Looks a symbol up in a loaded library by reading its ELF dynamic symbol
// table directly. The agent needs this for exactly one thing: the real
// dlsym/dlvsym. It interposes those, so asking dlsym for them would find
// itself, and a versioned reference could bind to the agent too. (And for
// the attach's entry patches, which look for the presents' definitions in
// every module, also those loaded with RTLD_LOCAL.)
#pragma once

struct dl_phdr_info;

namespace memframe::agent {

// `library` is matched against the end of each loaded object's path (e.g.
// "libc.so.6"). Returns the symbol's address, or null. Allocation-free.
void* FindLibrarySymbol(const char* library, const char* symbol);

// The address of `symbol` if the module `info` defines it, or null.
// Allocation-free and lock-free (usable inside dl_iterate_phdr).
void* LookUpDefinedSymbol(const dl_phdr_info* info, const char* symbol);

}  // namespace memframe::agent
