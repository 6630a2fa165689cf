// Where the agent's messages go, one definition per platform
// (agent/platform/<os>/diagnostics_output_<os>.cc): a handle on the standard
// error the process started with, written one line at a time without the
// game's C runtime and without allocating.
#pragma once

#include <cstddef>

namespace memframe::agent::diagnostics_output {

void Open();
void Close();
int ProcessId();
void WriteLine(const char* line, size_t len);

}  // namespace memframe::agent::diagnostics_output
