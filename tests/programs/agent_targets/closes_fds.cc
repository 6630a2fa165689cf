// A program that closes every fd above stderr, as daemons, sandboxes and
// Python's os.closerange do, and then opens a socketpair and a file of its
// own. Whatever numbers the agent's fds had, the program's own must end up
// holding exactly what it wrote there, and nothing else.
//
// Usage: closes_fds at-start|after-start FILE
//   at-start     closes the fds first thing in main;
//   after-start  makes kFdEarlyBlocks while the agent records, then closes
//                the fds and puts its socket at every number that was open
//                (the agent's among them).
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "churn.h"
#include "host_truth.h"

using namespace memframe::targets;

static std::vector<int> OpenFdsAboveStderr() {
  std::vector<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return fds;
  while (dirent* entry = readdir(dir)) {
    int fd = atoi(entry->d_name);
    if (fd > 2 && fd != dirfd(dir)) fds.push_back(fd);
  }
  closedir(dir);
  return fds;
}

static void CloseAllAboveStderr() {
  if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  for (rlim_t fd = 3; fd < limit.rlim_cur; ++fd) close(static_cast<int>(fd));
}

static bool WriteAll(int fd, const std::string& bytes) {
  return write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
}

static std::string ReadAll(int fd) {
  std::string bytes;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) bytes.append(buffer, static_cast<size_t>(n));
  return bytes;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  bool after_start = strcmp(argv[1], "after-start") == 0;
  std::vector<int> were_open;
  if (after_start) {
    Churn(kFdEarlyBlocks, kFdEarlySize);
    usleep(100000);  // the agent streams them meanwhile
    were_open = OpenFdsAboveStderr();
  }
  CloseAllAboveStderr();
  // The socketpair first: it gets the lowest numbers, where the agent's
  // socket would be if the agent took the lowest free one.
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return 2;
  int file = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (file < 0) return 2;
  for (int fd : were_open)
    if (fd != pair[0] && fd != pair[1] && fd != file) dup2(pair[0], fd);

  std::string expected;
  bool writes_ok = true;
  for (int round = 0; round < kFdRounds; ++round) {
    std::string chunk = "round " + std::to_string(round) + " of the program's own bytes\n";
    writes_ok = WriteAll(pair[0], chunk) && writes_ok;
    writes_ok = WriteAll(file, chunk) && writes_ok;
    expected += chunk;
    Churn(kFdBlocksPerRound, kFdLateSize);
    usleep(2000);  // the agent's writer wakes meanwhile
  }
  // No more sends on the socket, from any of its numbers: the read below
  // ends after what was sent.
  shutdown(pair[0], SHUT_WR);
  std::string from_socket = ReadAll(pair[1]);
  std::string from_file = lseek(file, 0, SEEK_SET) == 0 ? ReadAll(file) : std::string();
  bool socket_ok = from_socket == expected, file_ok = from_file == expected;
  std::printf("closes_fds %s: writes %s, socket %s, file %s\n", argv[1], writes_ok ? "ok" : "FAILED",
              socket_ok ? "intact" : "CHANGED", file_ok ? "intact" : "CHANGED");
  if (!socket_ok) std::printf("socket held %zu bytes, expected %zu\n", from_socket.size(), expected.size());
  if (!file_ok) std::printf("file held %zu bytes, expected %zu\n", from_file.size(), expected.size());
  return writes_ok && socket_ok && file_ok ? 0 : 1;
}
