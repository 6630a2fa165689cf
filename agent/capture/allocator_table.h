// The game's own allocators, declared through the annotation API
// (memframe_allocator_declare("frame arena", MEMFRAME_FRAME_ARENA, base,
// bytes)). Declarations are rare, so a small table under a spin lock, like
// the marker names; ids are dense from 1.
#pragma once

#include <cstdint>

namespace memframe::agent {

// Where an allocator was made, when the agent saw it made (a private heap's
// HeapCreate call); all 0 when unknown (annotate.h's declarations).
struct AllocatorOrigin {
  uint32_t stack_id = 0;
  uint32_t thread_id = 0;
  uint64_t ticks = 0;  // the event clock (clock.h)
};

struct AllocatorEntry {
  char name[64];  // cut to 63 bytes
  uint32_t kind;  // wire::AllocatorKind
  uint64_t base;
  uint64_t capacity;
  AllocatorOrigin origin;
};

// Returns the new allocator's id, or 0 when the table is full. A second
// declaration of the same name gets an id of its own (a level stack made
// again for each level is a new allocator with a new backing region).
uint32_t DeclareAllocator(const char* name, uint32_t kind, uint64_t base, uint64_t capacity,
                          const AllocatorOrigin& origin = {});

// Writer side: the entries of ids in [1, AllocatorEnd()) defined so far.
uint32_t AllocatorEnd();
const AllocatorEntry& AllocatorAt(uint32_t id);

}  // namespace memframe::agent
