// What a hook calls once it has done the real work: fill one Event (stack
// captured and interned here) and push it to the thread's buffer. Takes the
// RecursionGuard by reference as proof that the caller holds it, so nothing
// this does (unwinding, first-touch of a buffer) is recorded itself.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "capture/recursion_guard.h"

namespace memframe::agent {

// Set once the agent is connected and its writer runs; cleared on detach,
// at exit and in an untracked fork child. Hooks check it before any work.
extern std::atomic<bool> g_recording;

inline bool Recording() { return g_recording.load(std::memory_order_relaxed); }

void ConfigureCapture(int stack_depth, bool stacks);

void RecordAlloc(const RecursionGuard& proof, const void* address, size_t size, uint32_t packed_kind,
                 uint64_t ticks, uint64_t duration);
void RecordFree(const RecursionGuard& proof, const void* address, size_t size, uint32_t packed_kind,
                uint64_t ticks, uint64_t duration);

// Frames: presents nest (SDL calls GLX, glfwSwapBuffers calls glXSwapBuffers),
// so only the outermost present on a thread ends a frame.
void EnterPresent();
// Returns true if this was the outermost present; records FRAME_END then.
void LeavePresent(uint32_t entry_point_marker);

uint32_t CurrentFrame();

}  // namespace memframe::agent
