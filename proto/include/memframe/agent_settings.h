// The agent's settings: the one table `memframe run` writes as environment
// variables, `memframe attach` writes to its settings file (a running
// process's environment cannot be changed), and the agent parses back
// (agent/runtime/config.cc). Allocation-free, for the agent.
#pragma once

#include <cstdint>
#include <cstring>

#include "memframe/format.h"
#include "memframe/parse_number.h"

// X(type, field, name, default, min, max, scope): `name`, `scope` and a
// bound may be constants of memframe::wire (format.h, below). Numbers are decimal within [min, max]; switches are "1"
// or "0"; text is taken as it is. A value the agent cannot read leaves the
// default. Text: the socket (null: not started by a recorder) and the frame
// source (null or "auto", "slices", or a present's name).
#define MEMFRAME_AGENT_SETTINGS(X)                                                \
  X(const char*, socket_path, kEnvSocket, nullptr, 0, 0, kEverySession)         \
  X(int, stack_depth, kEnvStackDepth, 32, 1, kMaxStackDepth, kEverySession)     \
  X(bool, stacks, kEnvStacks, true, 0, 1, kEverySession)                        \
  X(bool, debug, kEnvDebug, false, 0, 1, kEverySession)                         \
  X(int, time_slice_ms, kEnvTimeSliceMs, 16, 0, 60'000, kEverySession)          \
  X(bool, drop_when_full, kEnvDropWhenFull, false, 0, 1, kEverySession)         \
  X(bool, follow_fork, kEnvFollowFork, false, 0, 1, kLaunchOnly)                \
  X(bool, follow_exec, kEnvFollowExec, true, 0, 1, kLaunchOnly)                 \
  X(bool, free_stacks, kEnvFreeStacks, false, 0, 1, kEverySession)              \
  X(bool, gpu, kEnvGpu, true, 0, 1, kEverySession)                              \
  X(const char*, frame_source, kEnvFrameSource, nullptr, 0, 0, kEverySession)

namespace memframe::wire {

// Which sessions a setting applies to. Launch only: an attach records the
// one process it was injected into. Its forked children are not followed
// (the detach could not reach them, and they would keep the patched
// imports), and the programs it execs never have the agent (it was injected,
// not preloaded: the new image inherits no hook).
enum SettingScope : uint8_t { kEverySession, kLaunchOnly };
enum Session : uint8_t { kLaunchSession, kAttachSession };

struct AgentSettings {
  // time_slice_ms: fallback frames until a present is seen; 0 = off.
#define MEMFRAME_X(type, field, name, default_value, ...) type field = default_value;
  MEMFRAME_AGENT_SETTINGS(MEMFRAME_X)
#undef MEMFRAME_X
};

namespace agent_settings_detail {
inline void Read(const char* text, const char** out, long, long) { *out = text; }
inline void Read(const char* text, bool* out, long, long) {
  if (strcmp(text, "1") == 0) *out = true;
  if (strcmp(text, "0") == 0) *out = false;
}
inline void Read(const char* text, int* out, int min, int max) { ParseInteger<int>(text, out, min, max); }
}  // namespace agent_settings_detail

// The settings `lookup(name)` gives (null: not set, the default stays).
template <typename Lookup>
AgentSettings ParseAgentSettings(Lookup lookup) {
  AgentSettings settings;
#define MEMFRAME_X(type, field, name, default_value, min, max, scope) \
  if (const char* text = lookup(name)) agent_settings_detail::Read(text, &settings.field, static_cast<int>(min), static_cast<int>(max));
  MEMFRAME_AGENT_SETTINGS(MEMFRAME_X)
#undef MEMFRAME_X
  return settings;
}


}  // namespace memframe::wire
