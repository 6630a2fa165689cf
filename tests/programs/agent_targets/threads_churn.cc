// Many threads allocating and freeing at once, with blocks crossing threads:
// the agent must record every event and neither lose nor reorder a block.
#include <cstdlib>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "host_truth.h"

using namespace memframe::targets;

int main() {
  // One mailbox per thread: thread t posts blocks to thread t+1.
  std::vector<std::vector<void*>> mailbox(kThreads);
  std::vector<std::mutex> locks(kThreads);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        int next = (t + 1) % kThreads;
        for (int i = 0; i < kBlocksPerThread; ++i) {
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
