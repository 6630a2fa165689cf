/* A statically linked program that memframe attach must refuse: it has no
   dynamic loader, so nothing could dlopen the agent into it. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("sleeping\n");
  fflush(stdout);
  sleep(60);
  return 0;
}
