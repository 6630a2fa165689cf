/* `exit_program TEXT CODE`: writes TEXT to stdout and returns CODE from main,
 * so that the agent's exit-time code runs (unlike dash, which leaves through
 * _exit). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 3) return 100;
  fputs(argv[1], stdout);
  return atoi(argv[2]);
}
