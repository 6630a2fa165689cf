// Interns call stacks: each distinct stack gets a small id once, and every
// event carries only that id. Lock-free: an open-addressing table whose
// slots are claimed with one compare-and-swap, so threads that allocate from
// stacks already seen only read shared memory.
//
// The table has a fixed capacity (StackTableCapacity). Its hash slots come
// in levels mapped as the stacks need them, each committed whole by the
// writer thread, the frames as used. When it is full, new stacks get id 0
// ("no stack") and are counted.
#pragma once

#include <cstdint>

namespace memframe::agent {

bool InitStackTable();

// Returns the id of this stack (interning it if new), or 0 if the table is
// full. depth must be >= 1.
uint32_t InternStack(const uint64_t* frames, int depth);

// Writer side: the frames of a published id (ids are published before the
// first event that uses them is pushed).
const uint64_t* StackFrames(uint32_t id, int* depth);
uint32_t StackCount();        // ids handed out so far (1 + highest id)

// Writer side, every pass: commits the next `bytes` of each mapped level of
// the hash table until all of it is, maps the next level once the last one
// is half full, and commits a margin of the frames and records ahead of
// their use (page_allocator.h, PrefaultPages), so the game's threads do not
// fault.
void PrefaultStackTable(uint64_t bytes);
uint64_t StackTableSlotBytesMapped();  // of the hash slots: the levels mapped so far
uint64_t StacksOverflowed();  // stacks that got id 0 because the table was full
uint64_t StackTableCapacity();  // distinct stacks it takes

}  // namespace memframe::agent
