// The process's command line split into arguments as the C runtime and
// CommandLineToArgvW split it, without shell32: importing shell32 would
// bring user32, gdi32 and advapi32 (and their imports) in before the agent,
// and their DllMains would run before it could record them.
#pragma once

#include <cstddef>

namespace memframe::agent {

// Splits `line` into arguments and writes them to `out` as NUL-terminated
// UTF-8, one after another; returns the bytes written (0 when none fit).
// An argument that does not fit whole ends the list.
size_t SplitCommandLine(const wchar_t* line, char* out, size_t size);

}  // namespace memframe::agent
