// The agent's settings, read once from the environment `memframe run` sets
// (names in proto/include/memframe/format.h).
#pragma once

namespace memframe::agent {

struct Config {
  const char* socket_path = nullptr;  // null: not started by a recorder
  int stack_depth = 32;
  bool stacks = true;
  bool debug = false;
  int time_slice_ms = 16;      // fallback frames until a present is seen; 0 = off
  bool drop_when_full = false; // lossless unless asked
  bool follow_fork = false;    // fork children: own stream, or untracked
  bool follow_exec = true;
  bool free_stacks = false;
  bool gpu = true;             // GPU object events (MEMFRAME_GPU=0: off)
  const char* frame_source = nullptr;  // null/"auto", "slices", or a present's name (glXSwapBuffers, ...)    // capture the stack of every free too (mismatch reports show both)     // exec'd programs keep the agent (a launcher script exec'ing the game)
};

// getenv only: safe before anything else is initialised.
Config ReadConfig();
// The same settings, by the same names, from another source (the attach
// config file: a running process's environment cannot be changed).
Config ReadConfigWith(const char* (*lookup)(const char* name, void* context), void* context);

}  // namespace memframe::agent
