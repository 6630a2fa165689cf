#include "runtime/config.h"

#include <cstdlib>

#include "memframe/format.h"

namespace memframe::agent {

Config ReadConfig() {
  return ReadConfigWith([](const char* name, void*) -> const char* { return getenv(name); }, nullptr);
}

Config ReadConfigWith(const char* (*lookup)(const char* name, void* context), void* context) {
  auto getenv = [&](const char* name) { return lookup(name, context); };
  Config c;
  c.socket_path = getenv(wire::kEnvSocket);
  if (c.socket_path && !*c.socket_path) c.socket_path = nullptr;
  if (const char* depth = getenv(wire::kEnvStackDepth)) {
    int d = atoi(depth);
    if (d > 0) c.stack_depth = d;
  }
  if (const char* stacks = getenv(wire::kEnvStacks)) c.stacks = stacks[0] != '0';
  if (const char* debug = getenv(wire::kEnvDebug)) c.debug = debug[0] == '1';
  if (const char* slice = getenv(wire::kEnvTimeSliceMs)) c.time_slice_ms = atoi(slice) > 0 ? atoi(slice) : 0;
  if (const char* drop = getenv(wire::kEnvDropWhenFull)) c.drop_when_full = drop[0] == '1';
  if (const char* fork = getenv(wire::kEnvFollowFork)) c.follow_fork = fork[0] == '1';
  if (const char* exec = getenv(wire::kEnvFollowExec)) c.follow_exec = exec[0] != '0';
  if (const char* frees = getenv(wire::kEnvFreeStacks)) c.free_stacks = frees[0] == '1';
  if (const char* gpu = getenv(wire::kEnvGpu)) c.gpu = gpu[0] != '0';
  c.frame_source = getenv(wire::kEnvFrameSource);
  return c;
}

}  // namespace memframe::agent
