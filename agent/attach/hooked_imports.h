// The imports an attach takes over by name (C++ ones mangled): their hooks
// are the agent's exported definitions of the same names, so this list and
// exports.map must agree (hook_tables_test checks both ways). The GPU calls
// come from their own tables (gl_hooks.h), the allocators' own API from
// allocator_api_hooks.h.
#pragma once

#include "hooks/present_hooks.h"

namespace memframe::agent {

inline constexpr const char* kHookedImportNames[] = {
    "malloc", "calloc", "realloc", "free", "reallocarray", "posix_memalign", "aligned_alloc", "memalign", "valloc",
    "pvalloc",
    "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
    "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
    "_ZdlPvSt11align_val_tRKSt9nothrow_t", "_ZdaPvSt11align_val_tRKSt9nothrow_t",
    "mmap", "mmap64", "munmap", "mremap",
    "dlopen", "dlclose", "dlsym", "dlvsym",
    "execve", "execvpe", "fexecve", "execv", "execvp", "execl", "execlp", "execle", "posix_spawn", "posix_spawnp",
#define MEMFRAME_X(Enumerator, symbol, ...) #symbol,
    MEMFRAME_LINUX_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
#define MEMFRAME_X(symbol) #symbol,
    MEMFRAME_PRESENT_LOOKUPS(MEMFRAME_X)
#undef MEMFRAME_X
};

}  // namespace memframe::agent
