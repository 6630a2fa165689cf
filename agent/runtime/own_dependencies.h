// The libraries loaded only because the agent needs them: the agent's
// DT_NEEDED closure less the program's (libstdc++ in a C program, where
// only the agent links it). Their constructors run before the agent's own
// (the loader initialises dependencies first) and may allocate, like
// libstdc++'s emergency exception pool (71 KiB): memframe's, never the
// game's. After the agent's constructor their calls are the agent's own
// work anyway (made under its recursion guard).
#pragma once

#include <cstdint>

namespace memframe::agent {

// Finds them (at the capture's set-up, before any is recorded).
void FindAgentOnlyModules();

// Whether `pc` lies in the code of one of them.
bool IsAgentOnlyCode(uintptr_t pc);

}  // namespace memframe::agent
