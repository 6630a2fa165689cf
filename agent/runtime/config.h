// The agent's settings, read once from the environment `memframe run` sets
// or from the file `memframe attach` writes: the one table of them is
// memframe/agent_settings.h.
#pragma once

#include "memframe/agent_settings.h"

namespace memframe::agent {

using Config = wire::AgentSettings;

// getenv only: safe before anything else is initialised.
Config ReadConfig();
// The same settings, by the same names, from another source (the attach
// config file: a running process's environment cannot be changed).
Config ReadConfigWith(const char* (*lookup)(const char* name, void* context), void* context);

}  // namespace memframe::agent
