// Tells, before a program runs, whether its executable brings its own
// allocator. The dynamic loader binds malloc to the executable's own
// definition before any preloaded library, so the agent's exported hooks
// never see those calls: the agent patches that definition's entry instead
// (agent/attach/own_allocator_patch.h), which can fail. Linux only (ELF
// symbol tables).
#pragma once

#include <string>

namespace memframe::injector {

// A one-line note such as "./game defines its own malloc (statically
// linked jemalloc), ..." when the executable at `path` defines malloc/free,
// operator new, or carries a known allocator's API (jemalloc, tcmalloc,
// mimalloc); "" for an ordinary program or a file it cannot read as ELF.
std::string OwnAllocatorWarning(const std::string& path);

}  // namespace memframe::injector
