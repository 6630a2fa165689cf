// Hooks in a process the agent was injected into (memframe attach). There
// preloading cannot interpose anything: every loaded module already bound
// malloc, operator new, the presents, ... to their real definitions. The
// agent instead rewrites the module's own import slots (its GOT: the
// JUMP_SLOT entries its PLT calls through, and the GLOB_DAT ones that
// -fno-plt code and function pointers use) to point at the agent's hooks,
// and writes the original values back on detach.
//
// Only the agent's attach thread calls these; none allocates.
#pragma once

#include <cstddef>

#include "attach/patch_rank.h"

namespace memframe::agent {

// Looks up the hooks in the agent's own module and the real functions of
// the presents (which the agent's RTLD_NEXT cannot see from a dlopen'ed
// library). False if the agent cannot find itself.
bool PrepareGotPatching();

// Patches every loaded module not patched yet (all but the agent, the
// dynamic loader and the vDSO), and prepares the entries of the presents
// they define (entry_trampolines.h; memframe writes those). A module that
// dlopen has not finished relocating is left for a later call, and
// *unrelocated (if given) says so. Returns the number of slots patched and
// entries prepared now.
size_t PatchLoadedModules(bool* unrelocated = nullptr);

// Writes every patched slot's original value back, and every entry's that
// memframe left patched (DisarmEntryTrampolines). Returns how many.
size_t UnpatchAll();

// For tests and the attach report: slots patched so far.
size_t PatchedSlots();

}  // namespace memframe::agent
