// The private heaps a game creates (HeapCreate, RtlCreateHeap) as named
// things of the capture: each is declared as an ALLOCATOR_HEAP allocator
// (capture/allocator_table.h) named "heap 0x<handle>" with the stack, frame
// and thread of its creation; its blocks carry its id (RecordAlloc's
// `heap`), its destruction is an ALLOCATOR_RELEASE (proto/FORMAT.md).
// The process heap, and heaps made before the recording started (the C
// runtime's own, made while it initialised before the agent), are not
// private heaps here: their blocks stay plain heap blocks.
#pragma once

#include <windows.h>

#include <cstdint>

namespace memframe::agent {

// Declares `heap`, just created by the hook whose frame is `hook_frame`,
// when recording (no lock a game thread holds; the allocator table's spin
// lock is held for a copy of 64 bytes).
void NamePrivateHeap(HANDLE heap, const void* hook_frame);

// The allocator id of `heap`; 0 for the process heap and for a heap not
// named. Lock-free: called by every HeapAlloc and HeapReAlloc hook.
uint32_t PrivateHeapId(HANDLE heap);

// `heap` is being destroyed: records its destruction (after its blocks'
// frees) and forgets it, so that a later heap at the same address is a
// heap of its own.
void PrivateHeapDestroyed(HANDLE heap);

}  // namespace memframe::agent
