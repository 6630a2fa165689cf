#include "runtime/diagnostics.h"

#include <cstdarg>
#include <cstdio>

#include "runtime/diagnostics_output.h"

namespace memframe::agent {

namespace {
bool g_debug = false;

void VWrite(const char* format, va_list args) {
  char line[512];
  int n = snprintf(line, sizeof(line), "memframe[%d]: ", diagnostics_output::ProcessId());
  if (n < 0) return;
  int m = vsnprintf(line + n, sizeof(line) - static_cast<size_t>(n) - 1, format, args);
  if (m < 0) return;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof(line) - 2) len = sizeof(line) - 2;
  line[len++] = '\n';
  diagnostics_output::WriteLine(line, len);
}
}  // namespace

void InitDiagnostics() { diagnostics_output::Open(); }
void CloseDiagnostics() { diagnostics_output::Close(); }

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
