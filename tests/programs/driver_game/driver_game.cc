// The game of driver_game_truth.h: updates, then presents through its fake
// driver. Line numbers matter (the truth header names two lines).
#include <unistd.h>

#include "driver_game_truth.h"
#include "fake_dri.h"

using namespace memframe::driver_game;

namespace {
volatile int g_presented = 0;
void* volatile g_sink;
}  // namespace

// noinline and the work after each call keep these functions in the stack.
__attribute__((noinline)) void UpdateGame(int frame) {
  for (int i = 0; i < kGameBlocks; ++i) {
    // One allocation site, kGameBlocks times a frame.
    g_sink = new char[kGameBlockBytes]; static_assert(__LINE__ == kUpdateAllocLine);
    delete[] static_cast<char*>(g_sink);
  }
  g_presented = g_presented + (frame & 0);
}

__attribute__((noinline)) void PresentFrame(int frame) {
  FakePresent(frame); static_assert(__LINE__ == kPresentCallLine);
  g_presented = g_presented + 1;
}

int main() {
  for (int frame = 0; frame < kFrames; ++frame) {
    UpdateGame(frame);
    PresentFrame(frame);
  }
  static const char kDone[] = "driver game presented its frames\n";
  return write(1, kDone, sizeof kDone - 1) > 0 ? 0 : 1;
}
