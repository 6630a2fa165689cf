#include "runtime/diagnostics.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace memframe::agent {

namespace {
int g_fd = 2;
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
  ssize_t ignored = write(g_fd, line, len);
  (void)ignored;
}
}  // namespace

void InitDiagnostics() {
  int fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
  if (fd >= 0) g_fd = fd;
}

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
