// What the per-thread buffers ask of the operating system, one definition
// per platform (agent/platform/<os>/thread_os_<os>.cc): thread and process
// ids without the C library, learning that a thread exits, and whether this
// process's rings have a writer to drain them. None of it allocates or takes
// a lock a game thread can hold.
#pragma once

#include <cstddef>
#include <cstdint>

#include "buffer/thread_buffer.h"

namespace memframe::agent::thread_os {

uint32_t ThisThreadId();
// Thread `tid`'s name in UTF-8, cut to fit `size` bytes with its NUL; empty
// when it has none or cannot be read. The writer's: it never allocates.
void ReadThreadName(uint32_t tid, char* name, size_t size);
uint32_t ThisProcessId();
void SleepMicros(long us);

// Arranges for MarkCurrentThreadExiting() to run when the calling thread,
// which owns `b`, exits.
void RegisterThreadExit(ThreadBuffer* b);
// Keeps the exiting thread's name in its buffer (the writer may look for it
// after the thread is gone).
void KeepExitingThreadName(ThreadBuffer* b);
// True once the thread `tid` can push nothing more.
bool ThreadGone(uint32_t tid);

// Who will ever drain this process's rings, the writer running in process
// `consumer_pid` (or, where the writer runs by itself, `consumer_running`).
enum class Drainer { kWriter, kNone, kUnknown };
Drainer WhoDrains(uint32_t consumer_pid, bool consumer_running);

}  // namespace memframe::agent::thread_os
