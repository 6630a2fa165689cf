// A Windows thread's name for ThreadInfo: its description
// (SetThreadDescription, Windows 10 1607 and Wine), read by the writer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::agent {

// The description of thread `tid` in UTF-8, cut on a character boundary to
// fit `size` bytes with its NUL; empty when it has none or it cannot be read.
void ReadWindowsThreadName(uint32_t tid, char* name, size_t size);

}  // namespace memframe::agent
