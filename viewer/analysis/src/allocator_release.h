// The loader's half of EVENT_ALLOCATOR_RELEASE: right after each release
// it puts a custom FREE (flagged wire::kFlagReleased) of every block the
// release frees, so that every pass (live memory, leaks, lifetimes,
// fragmentation) sees those blocks end there without knowing about
// allocators.
#pragma once

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

// Rewrites stream->events in place of the old store (the old chunks are
// freed as they are read). Does nothing for a stream without releases.
void ExpandAllocatorReleases(Stream* stream);

}  // namespace memframe::analysis
