#include "capture/unwinder_pipe.h"

#include <fcntl.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "attach/import_slots.h"
#include "runtime/owned_fd.h"

namespace memframe::agent {

namespace {

constinit OwnedFd g_read_end, g_write_end;
// The numbers last handed to libunwind: a call on them is checked, whether
// or not the pipe is still there.
std::atomic<int> g_read_number{-1}, g_write_number{-1};

bool IsPipeNumber(int fd) { return fd >= 0 && (fd == g_read_number.load() || fd == g_write_number.load()); }

int UnwinderPipe2(int fds[2], int flags) {
  int made[2];
  if (pipe2(made, flags | O_CLOEXEC) != 0) return -1;
  if (!g_read_end.Take(made[0]) || !g_write_end.Take(made[1])) {
    g_read_end.Close();
    g_write_end.Close();
    errno = EMFILE;
    return -1;
  }
  fds[0] = g_read_end.Get();
  fds[1] = g_write_end.Get();
  g_read_number.store(fds[0]);
  g_write_number.store(fds[1]);
  return 0;
}

// The pipe's end at `fd`, if the number still names it; else -1 (EBADF).
int Checked(int fd) {
  int ours = fd == g_read_number.load() ? g_read_end.Get() : g_write_end.Get();
  if (ours == fd) return fd;
  errno = EBADF;
  return -1;
}

ssize_t UnwinderRead(int fd, void* buffer, size_t size) {
  if (IsPipeNumber(fd) && Checked(fd) < 0) return -1;
  return read(fd, buffer, size);
}

int UnwinderClose(int fd) {
  if (!IsPipeNumber(fd)) return close(fd);
  // Never a number the program took over: the pipe's end is closed only
  // if it is still there.
  (fd == g_read_number.load() ? g_read_end : g_write_end).Close();
  return 0;
}

// syscall(2) is variadic; its arguments arrive in the same registers.
long UnwinderSyscall(long number, long a, long b, long c, long d, long e, long f) {
  if (number == SYS_write && IsPipeNumber(static_cast<int>(a)) && Checked(static_cast<int>(a)) < 0) return -1;
  return syscall(number, a, b, c, d, e, f);
}

struct Redirect {
  const char* name;
  void* to;
};

int RedirectIn(dl_phdr_info* info, size_t, void* patched) {
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  const char* base = strrchr(name, '/');
  if (strncmp(base ? base + 1 : name, "libunwind", 9) != 0) return 0;
  ModuleTables tables;
  if (!ReadTables(info, &tables)) return 0;
  static const Redirect kRedirects[] = {{"pipe2", reinterpret_cast<void*>(UnwinderPipe2)},
                                        {"read", reinterpret_cast<void*>(UnwinderRead)},
                                        {"close", reinterpret_cast<void*>(UnwinderClose)},
                                        {"syscall", reinterpret_cast<void*>(UnwinderSyscall)}};
  ForEachImportSlot(info, tables, [&](const char* symbol, void** slot) {
    for (const Redirect& r : kRedirects)
      if (strcmp(symbol, r.name) == 0 && WriteSlot(slot, r.to, InReadOnlyPage(tables, reinterpret_cast<uintptr_t>(slot))))
        ++*static_cast<int*>(patched);
    return true;
  });
  return 0;
}

std::atomic<bool> g_redirected{false};

}  // namespace

void RedirectUnwinderPipe() {
  if (g_redirected.exchange(true)) return;
  int patched = 0;
  dl_iterate_phdr(RedirectIn, &patched);
}

void CloseUnwinderPipe() {
  g_read_end.Close();
  g_write_end.Close();
}

}  // namespace memframe::agent
