// What the process-level hooks (exec, dlopen/dlclose) ask of the runtime.
#pragma once

#include <atomic>

#include "runtime/config.h"

namespace memframe::agent {

// Before the process image is replaced: send everything, end the stream
// ("exec"). The new image loads the agent again and opens a new stream.
void BeforeExec();
// The exec failed and the program goes on: record again (a new stream).
void AfterFailedExec();
// False when MEMFRAME_FOLLOW_EXEC=0: exec'd programs run without the agent.
bool FollowExec();

// memframe attach (agent/attach): sets the capture up in a process that
// runs without having preloaded the agent, connects to the recorder named
// in `config` and starts the writer. 0: recording; 1: already recording (a
// `memframe run` or another attach); 2: failed (the agent says why).
int StartAttached(const Config& config);
// memframe detach: the last events, EndOfStream "detach", the connection
// closed. The hooks pass through from then on.
void StopAttached();
// The connection to the recorder (-1 if none), for the attach thread to
// hear a detach request on.
int RecorderFd();

// Called by a hook that finds the agent not recording: sets the capture up
// if that has not happened yet (an allocation in a library constructor that
// runs before the agent's own). Returns whether to record.
bool StartEarly();

// Whether the agent's constructor has run: before it, the libraries only
// the agent needs run theirs (own_dependencies.h).
extern std::atomic<bool> g_agent_constructed;

// A hook's question before the agent's constructor ran (or when not
// recording): StartEarly, and not an allocation by a library only the
// agent needs, made from `caller`.
bool ShouldRecordEarly(const void* caller);

}  // namespace memframe::agent
