// The demo game's options and phases, shared by its two mains: main.cpp
// (GLFW, Linux) and demo_game_windows/main_windows.cpp (Win32 + WGL). A
// main opens its window and presents; everything the game allocates, and
// so every figure of demo_truth.h, comes from here and what it calls.
#pragma once

#include "demo_truth.h"

namespace memframe::demo {

struct Options {
  int gameplay_frames = kDefaultGameplayFrames;
  bool quiet = false;
  bool frame_times = false;
  bool particle_trail = false;  // one more allocation per gameplay frame (demo_truth.h)
  // Gameplay frames to wait before, ascending: a known first frame for the
  // attach tests, known frames for the live view's marks. An array, not a
  // vector: options must not add an allocation to demo_truth.h's figures.
  static constexpr int kMaxWaits = 4;
  int waits_before_gameplay_frame[kMaxWaits] = {};
  int waits = 0;
  const char* frame_log = nullptr;  // for the attach benchmark: when each frame ended
};

// False (after saying why on stderr) on bad usage.
bool ParseOptions(int argc, char** argv, Options& options);

// The main's window.
class GameWindow {
 public:
  // Presents the frame: the one swap call of the frame, which is where
  // memframe closes it; then the window's events.
  virtual void EndFrame() = 0;
  // The player closed the window: the one thing that can shorten a run
  // (never in tests).
  virtual bool ShouldClose() = 0;

 protected:
  ~GameWindow() = default;
};

// Runs every phase (demo_truth.h); returns the number of frames rendered.
int RunGame(GameWindow& window, const Options& options);

// What a run that is not --quiet prints at its end.
void PrintFramesRendered(int frames_rendered);

}  // namespace memframe::demo
