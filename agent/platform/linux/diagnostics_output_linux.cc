#include <fcntl.h>
#include <unistd.h>

#include "runtime/diagnostics_output.h"
#include "runtime/owned_fd.h"

namespace memframe::agent::diagnostics_output {

namespace {
constinit OwnedFd g_out;  // a copy of stderr; checked before each write (owned_fd.h)
}  // namespace

void Open() { g_out.Take(fcntl(2, F_DUPFD_CLOEXEC, 0)); }
void Close() { g_out.Close(); }
int ProcessId() { return static_cast<int>(getpid()); }

void WriteLine(const char* line, size_t len) {
  int fd = g_out.Get();
  if (fd < 0) return;  // the program closed or reused it: say nothing rather than write into its files
  ssize_t ignored = write(fd, line, len);
  (void)ignored;
}

}  // namespace memframe::agent::diagnostics_output
