#include <windows.h>

#include "runtime/diagnostics_output.h"

namespace memframe::agent::diagnostics_output {

namespace {
// The standard error handle the process started with, one WriteFile per
// line, never through the game's C runtime (another CRT, or closed streams).
HANDLE g_out = nullptr;
}  // namespace

void Open() { g_out = GetStdHandle(STD_ERROR_HANDLE); }
void Close() { g_out = nullptr; }
int ProcessId() { return static_cast<int>(GetCurrentProcessId()); }

void WriteLine(const char* line, size_t len) {
  if (!g_out || g_out == INVALID_HANDLE_VALUE) return;
  DWORD written = 0;
  WriteFile(g_out, line, static_cast<DWORD>(len), &written, nullptr);
}

}  // namespace memframe::agent::diagnostics_output
