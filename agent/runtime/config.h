// The agent's settings, read once from the environment `memframe run` sets
// (names in proto/include/memframe/format.h).
#pragma once

namespace memframe::agent {

struct Config {
  const char* socket_path = nullptr;  // null: not started by a recorder
  int stack_depth = 32;
  bool stacks = true;
  bool debug = false;
};

// getenv only: safe before anything else is initialised.
Config ReadConfig();

}  // namespace memframe::agent
