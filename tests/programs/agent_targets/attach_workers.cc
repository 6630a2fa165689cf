// A running process for memframe attach to find: worker threads that
// allocate on command (or in a tight loop), driven line by line from stdin
// so that a test knows exactly what happened between an attach and a
// detach.
//
//   round N    every worker does N x malloc(1000 + w)/free and
//              N x new char[2000 + w]/delete[] (w = worker index), then
//              "done" is printed
//   free-old   frees the 7 blocks of 777 bytes made at start-up (before
//              any attach), then "freed"
//   spin-on / spin-off   workers allocate and free in a loop until off
//   exit N     exits with status N
// "ready" is printed once the workers wait.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

std::mutex g_mutex;
std::condition_variable g_wake, g_done;
long g_round_size = 0;
int g_generation = 0;
int g_finished = 0;
std::atomic<bool> g_spin{false};
std::atomic<bool> g_quit{false};

__attribute__((noinline)) void Round(int worker, long n) {
  for (long i = 0; i < n; ++i) {
    void* block = malloc(1000 + static_cast<size_t>(worker));
    __asm__ volatile("" : : "r"(block) : "memory");
    free(block);
    char* array = new char[2000 + static_cast<size_t>(worker)];
    __asm__ volatile("" : : "r"(array) : "memory");
    delete[] array;
  }
}

void Worker(int index) {
  int seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_wake.wait(lock, [&] { return g_generation != seen || g_spin.load() || g_quit.load(); });
    if (g_quit.load()) return;
    if (g_spin.load() && g_generation == seen) {
      lock.unlock();
      while (g_spin.load()) Round(index, 16);
      continue;
    }
    seen = g_generation;
    long n = g_round_size;
    lock.unlock();
    Round(index, n);
    lock.lock();
    if (++g_finished == 0) break;
    g_done.notify_all();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  std::vector<void*> old;
  for (int i = 0; i < 7; ++i) old.push_back(malloc(777));
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) workers.emplace_back(Worker, i);
  printf("ready\n");
  fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "round ", 6) == 0) {
      std::unique_lock<std::mutex> lock(g_mutex);
      g_round_size = atol(line + 6);
      g_finished = 0;
      ++g_generation;
      g_wake.notify_all();
      g_done.wait(lock, [&] { return g_finished == threads; });
      printf("done\n");
    } else if (strncmp(line, "free-old", 8) == 0) {
      for (void* p : old) free(p);
      old.clear();
      printf("freed\n");
    } else if (strncmp(line, "spin-on", 7) == 0) {
      g_spin.store(true);
      g_wake.notify_all();
      printf("spinning\n");
    } else if (strncmp(line, "spin-off", 8) == 0) {
      g_spin.store(false);
      printf("still\n");
    } else if (strncmp(line, "exit ", 5) == 0) {
      int status = atoi(line + 5);
      g_quit.store(true);
      g_wake.notify_all();
      for (auto& w : workers) w.join();
      printf("bye\n");
      fflush(stdout);
      return status;
    }
    fflush(stdout);
  }
  g_quit.store(true);
  g_wake.notify_all();
  for (auto& w : workers) w.join();
  return 0;
}
