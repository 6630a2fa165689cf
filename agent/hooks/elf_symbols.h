// Looks a symbol up in a loaded library by reading its ELF dynamic symbol
// table directly. The agent needs this for exactly one thing: the real
// dlsym/dlvsym. It interposes those, so asking dlsym for them would find
// itself, and a versioned reference could bind to the agent too.
#pragma once

namespace memframe::agent {

// `library` is matched against the end of each loaded object's path (e.g.
// "libc.so.6"). Returns the symbol's address, or null. Allocation-free.
void* FindLibrarySymbol(const char* library, const char* symbol);

}  // namespace memframe::agent
