// The agent's hooks of exec*, posix_spawn*, dlopen and dlclose
// (process_hooks.cc says what each must see).
#pragma once

namespace memframe::agent {

// Looks up the libc functions behind those hooks, at the agent's start:
// a lookup inside the hook would take the loader's lock and reset the
// game's dlerror state on the game's thread. They are libc's, always
// loaded by then.
void ResolveProcessFunctions();

}  // namespace memframe::agent
