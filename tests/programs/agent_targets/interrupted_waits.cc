// Timed waits that a stop must not cut short: the main thread loops on
// sigtimedwait, a second thread on epoll_wait, a third on nanosleep, each
// with a 200 ms timeout and nothing to wake it. memframe attach stopping
// and resuming the threads must be invisible: no wait returns EINTR, none
// returns before its timeout. Prints "ready", then the count of each wait
// and of those that ended early or in error.
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

constexpr int kWaits = 12;
constexpr long kTimeoutMs = 200;

std::atomic<int> g_wrong{0};

double NowMs() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// `wait` returns true if it timed out as it should.
template <typename Wait>
void Loop(const char* name, Wait wait) {
  for (int i = 0; i < kWaits; ++i) {
    double start = NowMs();
    bool timed_out = wait();
    double took = NowMs() - start;
    if (!timed_out || took < kTimeoutMs) {
      fprintf(stderr, "%s: %s after %.1f ms\n", name, timed_out ? "early" : strerror(errno), took);
      ++g_wrong;
    }
  }
}

}  // namespace

int main() {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);  // inherited by the threads: nobody gets it but sigtimedwait
  int epoll = epoll_create1(EPOLL_CLOEXEC);
  std::thread epoller([&] {
    Loop("epoll_wait", [&] {
      epoll_event event{};
      return epoll_wait(epoll, &event, 1, kTimeoutMs) == 0;
    });
  });
  std::thread sleeper([] {
    Loop("nanosleep", [] {
      timespec nap{0, kTimeoutMs * 1'000'000};
      return nanosleep(&nap, nullptr) == 0;
    });
  });
  printf("ready\n");
  fflush(stdout);
  Loop("sigtimedwait", [&] {
    timespec timeout{0, kTimeoutMs * 1'000'000};
    return sigtimedwait(&usr1, nullptr, &timeout) < 0 && errno == EAGAIN;
  });
  epoller.join();
  sleeper.join();
  printf("%d waits of each kind, %d early or in error\n", kWaits, g_wrong.load());
  return 0;
}
