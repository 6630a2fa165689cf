// Many threads allocating and freeing at once, with blocks crossing threads:
// the agent must record every event and neither lose nor reorder a block.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "host_truth.h"

using namespace memframe::targets;

// argv[1], if given, multiplies the blocks per thread (a heavier load for
// the drop-mode test).
int main(int argc, char** argv) {
  const int blocks_per_thread = kBlocksPerThread * (argc > 1 ? atoi(argv[1]) : 1);
  // One mailbox per thread: thread t posts blocks to thread t+1.
  std::vector<std::vector<void*>> mailbox(kThreads);
  std::vector<std::mutex> locks(kThreads);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // Named after their first allocation (the vector above): the agent
        // must still report the final name.
        pthread_setname_np(pthread_self(), ("churn-" + std::to_string(t)).c_str());
        int next = (t + 1) % kThreads;
        for (int i = 0; i < blocks_per_thread; ++i) {
          void* p = malloc(kChurnBlockSize);
          if (i % 2) {
            free(p);
          } else {
            std::lock_guard<std::mutex> lock(locks[next]);
            mailbox[next].push_back(p);
          }
          if (i % 64 == 0) {
            std::vector<void*> mine;
            {
              std::lock_guard<std::mutex> lock(locks[t]);
              mine.swap(mailbox[t]);
            }
            for (void* q : mine) free(q);
          }
        }
      });
    }
    for (auto& th : threads) th.join();
  }
  for (auto& box : mailbox)
    for (void* q : box) free(q);
  std::printf("threads_churn done\n");
  return 0;
}
