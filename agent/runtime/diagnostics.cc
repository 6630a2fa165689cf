#include "runtime/diagnostics.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>

#include "runtime/owned_fd.h"

namespace memframe::agent {

namespace {
constinit OwnedFd g_out;  // a copy of stderr; checked before each write (owned_fd.h)
bool g_debug = false;

void VWrite(const char* format, va_list args) {
  char line[512];
  int n = snprintf(line, sizeof(line), "memframe[%d]: ", static_cast<int>(getpid()));
  if (n < 0) return;
  int m = vsnprintf(line + n, sizeof(line) - static_cast<size_t>(n) - 1, format, args);
  if (m < 0) return;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof(line) - 2) len = sizeof(line) - 2;
  line[len++] = '\n';
  int fd = g_out.Get();
  if (fd < 0) return;  // the program closed or reused it: say nothing rather than write into its files
  ssize_t ignored = write(fd, line, len);
  (void)ignored;
}
}  // namespace

void InitDiagnostics() { g_out.Take(fcntl(2, F_DUPFD_CLOEXEC, 0)); }

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
