// A program under a seccomp filter, for `memframe attach` to refuse: the
// filter kills the process at its first openat, which dlopen needs to load
// a library (the agent). Driven from stdin after "ready":
//   sum N    prints the sum of 1..N
//   exit N   prints "bye" and exits with status N
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int main(void) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof(filter) / sizeof(filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    perror("seccomp_filtered: cannot install the filter");
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  char line[128];
  while (fgets(line, sizeof line, stdin)) {
    char word[16];
    long n = 0;
    if (sscanf(line, "%15s %ld", word, &n) != 2) continue;
    if (strcmp(word, "sum") == 0) {
      printf("%ld\n", n * (n + 1) / 2);
    } else if (strcmp(word, "exit") == 0) {
      printf("bye\n");
      fflush(stdout);
      return (int)n;
    }
    fflush(stdout);
  }
  return 0;
}
