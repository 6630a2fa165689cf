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

void ConfigureCapture(int stack_depth, bool stacks, bool free_stacks);

// `hook_frame`: the hook's __builtin_frame_address(0), where the stack's
// unwind may start (stack_capture.h), or null. `heap`: the id of the private
// heap (an ALLOCATOR_HEAP allocator) the block came from, 0 for none.
void RecordAlloc(const RecursionGuard& proof, const void* address, size_t size, uint32_t packed_kind,
                 uint64_t ticks, uint64_t duration, const void* hook_frame = nullptr, uint32_t heap = 0);
void RecordFree(const RecursionGuard& proof, const void* address, size_t size, uint32_t packed_kind,
                uint64_t ticks, uint64_t duration, const void* hook_frame = nullptr);

// The calling hook's stack, interned (0 when stacks are off): for events
// that do not go through the ring (gpu/gpu_queue.h).
uint32_t CaptureEventStack(const RecursionGuard& proof, const void* hook_frame);

// MEMFRAME_FRAME_SOURCE: frames end only at `forced_marker` (at every call
// of it, nested or not), or (slices_only) only time slices cut the run.
void ConfigureFrameSource(uint32_t forced_marker, bool slices_only);

// Frames: presents nest (SDL calls GLX, glfwSwapBuffers calls glXSwapBuffers),
// so only the outermost present on a thread ends a frame.
void EnterPresent();
// Ends a frame (records FRAME_END) if this was the outermost present.
void LeavePresent(uint32_t entry_point_marker);

// The game's own frame mark (annotation API). Once the game marks frames,
// presents no longer end them: the game knows its frames best.
void AnnotatedFrameMark();
// Fallback frames: records a time-slice boundary (a FRAME_END of marker
// kMarkerTimeSlice that does not advance the frame counter) until a present
// or a frame mark is seen. Called by the writer thread on a timer.
void TimeSliceFrame();
// A named marker (EVENT_MARKER) at this point of the calling thread.
void RecordMarker(const RecursionGuard& proof, const char* name);
// A bulk release of a declared allocator (EVENT_ALLOCATOR_RELEASE): its
// custom blocks at `mark` and above are freed (null: all of them).
void RecordAllocatorRelease(const RecursionGuard& proof, uint32_t allocator, const void* mark);

// The frame counter: the number of the frame in progress. 64-bit, from 0.
uint64_t CurrentFrame();
// Tests only: start counting from `frame` (to see frames past 2^32).
void SetFrameCounterForTesting(uint64_t frame);

// A new stream (agent_runtime.cc ForgetStream): what a stream counts for
// itself starts from 0 again (the calls made by signal handlers that its
// EndOfStream reports, the time slices' numbers). The frame counter goes on:
// a forked child's frames follow its parent's.
void ForgetRecorderCountsAfterFork();

}  // namespace memframe::agent
