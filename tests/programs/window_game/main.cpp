// A program of kFrames frames with known allocations (window_truth.h), for
// `memframe run --keep-last`. Arguments: MS_PER_FRAME [--signal-parent-at F]
// [--crash-at F]: sleep that long each frame, send SIGUSR1 to the parent
// (memframe) before frame F's mark, or die by SIGSEGV in frame F.
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "memframe/annotate.h"
#include "window_truth.h"

using namespace memframe::window_game;

// Through volatile pointers, so that the compiler cannot drop a malloc whose
// block is freed unread.
static void* (*volatile g_malloc)(size_t) = malloc;
static void (*volatile g_free)(void*) = free;
static void* volatile g_leaks[2];

int main(int argc, char** argv) {
  long ms = argc > 1 ? atol(argv[1]) : 0;
  long signal_at = -1, crash_at = -1;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--signal-parent-at") == 0) signal_at = atol(argv[i + 1]);
    if (strcmp(argv[i], "--crash-at") == 0) crash_at = atol(argv[i + 1]);
  }
  void* blocks[8];
  for (uint64_t f = 0; f < kFrames; ++f) {
    for (uint64_t b = 0; b < BlocksIn(f); ++b) blocks[b] = g_malloc(BlockSize(f));
    if (f == kEarlyLeakFrame) g_leaks[0] = g_malloc(kEarlyLeakBytes);
    if (f == kLateLeakFrame) g_leaks[1] = g_malloc(kLateLeakBytes);
    for (uint64_t b = 0; b < BlocksIn(f); ++b) g_free(blocks[b]);
    if (static_cast<long>(f) == signal_at) kill(getppid(), SIGUSR1);
    if (static_cast<long>(f) == crash_at) raise(SIGSEGV);
    if (ms > 0) {
      timespec pause{ms / 1000, (ms % 1000) * 1000000};
      nanosleep(&pause, nullptr);
    }
    memframe_frame_mark();
  }
  return 0;
}
