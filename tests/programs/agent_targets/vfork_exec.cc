// vfork + exec, N times: the child runs in the parent's memory until its
// exec, so whatever an exec hook allocates there stays in the parent's
// heap. Prints how much the heap in use grew across the N children
// (natively 0).
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int children = argc > 1 ? atoi(argv[1]) : 1000;
  const size_t before = mallinfo2().uordblks;
  for (int i = 0; i < children; ++i) {
    pid_t pid = vfork();
    if (pid == 0) {
      execl("/bin/true", "true", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  printf("%d children, heap grew by %zu bytes\n", children, mallinfo2().uordblks - before);
  return 0;
}
