// The loaded objects, read with dl_iterate_phdr, so the analysis can turn
// addresses into symbols. Sent at start and whenever the loader's
// add/remove counters change (dlopen / dlclose).
#pragma once

#include <cstdint>

#include "writer/socket_sink.h"

namespace memframe::agent {

// The loader's counts of objects added and removed since start
// (dl_phdr_info's dlpi_adds and dlpi_subs). glibc reports adds as its
// load counter and subs as adds minus the objects loaded now, so every
// dlopen that maps an object changes adds and every unload changes subs.
struct LoaderCounts {
  unsigned long long adds = 0, subs = 0;
};

// Now, for one lock of the loader and one callback (the walk stops at the
// first object). Any thread; never allocates.
LoaderCounts ReadLoaderCounts();

// True when the module map last encoded lists every object loaded in state
// `now` (read before): then a dlclose needs no fresh map first.
bool ModuleMapCovers(const LoaderCounts& now);

// Reads what the next LoadedObjectsChanged and EncodeModuleMap look at,
// outside the writer's encoding lock: on Windows listing the modules and
// naming their files takes the loader lock, which a game thread inside a
// DllMain may hold while it waits for the writer to drain its full ring
// (a deadlock if the writer waited for the loader lock with the encoding
// held). A no-op on Linux, where dl_iterate_phdr never waits for dlopen's
// constructors. Writer thread only.
void PrepareModuleMap();

// True (and remembers the new state) if objects were loaded or unloaded
// since the previous call. The first call is always true. *unloaded (if
// given) says whether something was unloaded, the first call aside.
bool LoadedObjectsChanged(bool* unloaded = nullptr);

// Writer thread only.
void EncodeModuleMap(SocketSink& sink, uint64_t ticks);

// Fork child: the parent's maps went to the parent's stream, so the child's
// first LoadedObjectsChanged() is true again and dlclose waits for a map.
void ForgetModuleMapAfterFork();

}  // namespace memframe::agent
