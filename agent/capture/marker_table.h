// Names of the markers a game places through the annotation API
// (memframe_marker("level_load_begin")). Rare calls, so a small table under
// a spin lock is enough; ids are dense from kFirstDynamicMarker on.
#pragma once

#include <cstdint>

namespace memframe::agent {

// Returns the marker's id, defining it on first use; 0 if the table is full.
uint32_t InternMarker(const char* name);

// Writer side: names of the ids in [first, end) defined so far.
uint32_t MarkerEnd();
const char* MarkerName(uint32_t id);

}  // namespace memframe::agent
