#include "runtime/diagnostics.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#include <cstdarg>
#include <cstdio>

#ifndef _WIN32
#include "runtime/owned_fd.h"
#endif

namespace memframe::agent {

namespace {
bool g_debug = false;

#ifdef _WIN32
// The standard error handle the process started with, one WriteFile per
// line, never through the game's C runtime (another CRT, or closed streams).
HANDLE g_out = nullptr;
int ProcessId() { return static_cast<int>(GetCurrentProcessId()); }
void WriteLine(const char* line, size_t len) {
  if (!g_out || g_out == INVALID_HANDLE_VALUE) return;
  DWORD written = 0;
  WriteFile(g_out, line, static_cast<DWORD>(len), &written, nullptr);
}
#else
constinit OwnedFd g_out;  // a copy of stderr; checked before each write (owned_fd.h)
int ProcessId() { return static_cast<int>(getpid()); }
void WriteLine(const char* line, size_t len) {
  int fd = g_out.Get();
  if (fd < 0) return;  // the program closed or reused it: say nothing rather than write into its files
  ssize_t ignored = write(fd, line, len);
  (void)ignored;
}
#endif

void VWrite(const char* format, va_list args) {
  char line[512];
  int n = snprintf(line, sizeof(line), "memframe[%d]: ", ProcessId());
  if (n < 0) return;
  int m = vsnprintf(line + n, sizeof(line) - static_cast<size_t>(n) - 1, format, args);
  if (m < 0) return;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof(line) - 2) len = sizeof(line) - 2;
  line[len++] = '\n';
  WriteLine(line, len);
}
}  // namespace

#ifdef _WIN32
void InitDiagnostics() { g_out = GetStdHandle(STD_ERROR_HANDLE); }
void CloseDiagnostics() { g_out = nullptr; }
#else
void InitDiagnostics() { g_out.Take(fcntl(2, F_DUPFD_CLOEXEC, 0)); }
void CloseDiagnostics() { g_out.Close(); }
#endif

void SetDebug(bool on) { g_debug = on; }

void Warn(const char* format, ...) {
  va_list args;
  va_start(args, format);
  VWrite(format, args);
  va_end(args);
}

void Debug(const char* format, ...) {
  if (!g_debug) return;
  va_list args;
  va_start(args, format);
  VWrite(format, args);
  va_end(args);
}

}  // namespace memframe::agent
