// A process for memframe attach to be killed on: whatever instant memframe
// dies at, this program must end exactly as natively. It prints "ready",
// then for about a second its threads hold state where a botched restore
// would show: a worker keeps a floating-point recurrence in vector
// registers, the main thread sleeps in nanosleep between steps of its own
// sum, another thread waits on a condition variable and one blocks in
// read(). It prints the sums, which do not depend on timing.
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>

namespace {

constexpr long kWorkerSteps = 400'000'000;
constexpr int kMainSteps = 400;

__attribute__((noinline)) double Recurrence(long steps) {
  double a = 1.0, b = 0.0, c = 0.5;
  for (long i = 0; i < steps; ++i) {
    a = a * 1.0000000001 + 1e-12;
    c = c * 0.9999999999 + a * 1e-13;
    b += a - c;
  }
  return b;
}

}  // namespace

int main() {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return 1;
  double worker_sum = 0;
  std::thread worker([&] { worker_sum = Recurrence(kWorkerSteps); });
  std::mutex mutex;
  std::condition_variable wake;
  bool go = false;
  long waiter_saw = 0;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mutex);
    wake.wait(lock, [&] { return go; });
    waiter_saw = 42;
  });
  std::thread reader([&] {
    char byte = 0;
    long total = 0;
    while (read(pipe_fds[0], &byte, 1) == 1) total += byte;
    printf("reader read %ld\n", total);
  });
  printf("ready\n");
  fflush(stdout);
  long main_sum = 0;
  for (int i = 0; i < kMainSteps; ++i) {
    timespec nap{0, 2'000'000};
    while (nanosleep(&nap, &nap) != 0) {
    }
    main_sum += i * i;
  }
  worker.join();
  {
    std::lock_guard<std::mutex> lock(mutex);
    go = true;
  }
  wake.notify_all();
  waiter.join();
  const char bytes[3] = {1, 2, 3};
  if (write(pipe_fds[1], bytes, 3) != 3) return 1;
  close(pipe_fds[1]);
  reader.join();
  printf("main %ld worker %.17g waiter %ld\n", main_sum, worker_sum, waiter_saw);
  return 0;
}
