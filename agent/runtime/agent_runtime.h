// What the process-level hooks (exec, dlopen/dlclose) ask of the runtime.
#pragma once

namespace memframe::agent {

// Before the process image is replaced: send everything, end the stream
// ("exec"). The new image loads the agent again and opens a new stream.
void BeforeExec();
// The exec failed and the program goes on: record again (a new stream).
void AfterFailedExec();
// False when MEMFRAME_FOLLOW_EXEC=0: exec'd programs run without the agent.
bool FollowExec();

}  // namespace memframe::agent
