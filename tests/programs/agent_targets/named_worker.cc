// A main thread and one named worker thread, each making a known number of
// blocks of its own size: who allocated what, by thread, is exact.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "host_truth.h"

using namespace memframe::targets;

namespace {
void* Work(void*) {
  pthread_setname_np(pthread_self(), kWorkerName);
  for (int i = 0; i < kWorkerBlocks; ++i) {
    void* p = malloc(kWorkerBlockSize);
    memset(p, 1, 16);
    free(p);
  }
  return nullptr;
}
}  // namespace

int main() {
  pthread_t worker;
  if (pthread_create(&worker, nullptr, Work, nullptr) != 0) return 1;
  for (int i = 0; i < kMainBlocks; ++i) {
    void* p = malloc(kMainBlockSize);
    memset(p, 2, 16);
    free(p);
  }
  pthread_join(worker, nullptr);
  std::printf("named worker done\n");
  return 0;
}
