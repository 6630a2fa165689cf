// What a program sees of its fd numbers, which the agent must leave as
// they are natively:
//   first          prints the number its first open() gets
//   limit N        lowers RLIMIT_NOFILE to N, execs itself with `count`
//   count          opens /dev/null until it cannot; prints how many
//   reuse IN OUT   closes fds 3 to 63 (a daemon's clean-up of the low
//                  numbers), opens IN on 3 and OUT on 4,
//                  allocates from code without unwind tables (the agent's
//                  unwinder hands such stacks to libunwind, whose memory
//                  check reads and writes a pipe it keeps), then reads IN
//                  whole and writes what it read to OUT; prints the count
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" void AllocateWithoutUnwindTables(int rounds);  // fd_numbers_no_unwind.c

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "first") {
    printf("first open: %d\n", open("/dev/null", O_RDONLY));
    return 0;
  }
  if (mode == "limit" && argc > 2) {
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = strtoul(argv[2], nullptr, 10);
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return 2;
    execl("/proc/self/exe", argv[0], "count", static_cast<char*>(nullptr));
    return 3;
  }
  if (mode == "count") {
    int opened = 0;
    while (open("/dev/null", O_RDONLY) >= 0) ++opened;
    printf("opened %d\n", opened);
    return 0;
  }
  if (mode == "reuse" && argc > 3) {
    for (int fd = 3; fd < 64; ++fd) close(fd);
    if (open(argv[2], O_RDONLY) != 3 || open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600) != 4) return 2;
    AllocateWithoutUnwindTables(100);
    char bytes[256];
    ssize_t n = read(3, bytes, sizeof bytes);
    if (n > 0 && write(4, bytes, static_cast<size_t>(n)) != n) return 3;
    printf("read %zd\n", n);
    return 0;
  }
  fprintf(stderr, "usage: target_fd_numbers first | limit N | count | reuse IN OUT\n");
  return 1;
}
