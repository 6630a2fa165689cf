// The game of driver_game_truth.h: start-up, then frames of update, the
// worker's job and a present through the fake driver, with two level loads
// among them, then a clean teardown. Line numbers matter (the truth header
// names them).
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#include "driver_game_truth.h"
#include "fake_dri.h"

using namespace memframe::driver_game;

namespace {
volatile int g_presented = 0;
void* volatile g_sink;
void* volatile g_worker_sink;
void* g_startup[kStartupBlocks];
void* g_level[kLevel2Blocks > kLevel1Blocks ? kLevel2Blocks : kLevel1Blocks];
int g_level_blocks = 0;
sem_t g_job_start, g_job_done;
}  // namespace

// noinline and the work after each call keep these functions in the stack.
__attribute__((noinline)) void UpdateGame(int frame) {
  for (int i = 0; i < kGameBlocks; ++i) {
    g_sink = new char[kGameBlockBytes]; static_assert(__LINE__ == kUpdateAllocLine);
    delete[] static_cast<char*>(g_sink);
  }
  g_presented = g_presented + (frame & 0);
}

__attribute__((noinline)) void PresentFrame(int frame) {
  FakePresent(frame); static_assert(__LINE__ == kPresentCallLine);
  g_presented = g_presented + 1;
}

// What the game keeps for its whole run.
__attribute__((noinline)) void StartUp() {
  for (void*& block : g_startup) {
    block = new char[kStartupBlockBytes]; static_assert(__LINE__ == kStartupAllocLine);
  }
}

__attribute__((noinline)) void LoadLevel(int blocks) {
  for (int i = 0; i < blocks; ++i) {
    g_level[g_level_blocks++] = new char[kLevelBlockBytes]; static_assert(__LINE__ == kLevelAllocLine);
  }
}

__attribute__((noinline)) void UnloadLevel() {
  while (g_level_blocks > 0) delete[] static_cast<char*>(g_level[--g_level_blocks]);
}

// One frame's job on the worker: scratch blocks, each freed when used. Not
// unrolled, so that its blocks come from one call site, as the truth counts.
__attribute__((noinline)) void WorkerJob() {
#pragma GCC unroll 1
  for (int i = 0; i < kWorkerBlocks; ++i) {
    g_worker_sink = new char[kWorkerBlockBytes]; static_assert(__LINE__ == kWorkerAllocLine);
    delete[] static_cast<char*>(g_worker_sink);
  }
}

void* WorkerMain(void*) {
  // Named before its first allocation (prctl on itself: no allocation).
  pthread_setname_np(pthread_self(), kWorkerName);
  for (int frame = 0; frame < kFrames; ++frame) {
    while (sem_wait(&g_job_start) != 0) {}
    WorkerJob();
    sem_post(&g_job_done);
  }
  return nullptr;
}

int main() {
  sem_init(&g_job_start, 0, 0);
  sem_init(&g_job_done, 0, 0);
  pthread_t worker;
  // glibc allocates the thread's TLS vector (driver_game_truth.h).
  const int created = pthread_create(&worker, nullptr, WorkerMain, nullptr); static_assert(__LINE__ == kThreadCreateLine);
  if (created != 0) return 1;
  StartUp();
  for (int frame = 0; frame < kFrames; ++frame) {
    if (frame >= kLoad1First && frame <= kLoad1Last) LoadLevel(kLevel1BlocksPerFrame);
    if (frame == kLoad2Frame) {
      UnloadLevel();
      LoadLevel(kLevel2Blocks);
    }
    UpdateGame(frame);
    sem_post(&g_job_start);  // the worker's job belongs to this frame
    while (sem_wait(&g_job_done) != 0) {}
    PresentFrame(frame);
  }
  pthread_join(worker, nullptr);
  UnloadLevel();
  for (void* block : g_startup) delete[] static_cast<char*>(block);
  FakeShutdown();
  static const char kDone[] = "driver game presented its frames\n";
  return write(1, kDone, sizeof kDone - 1) > 0 ? 0 : 1;
}
