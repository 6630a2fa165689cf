// The loaded objects, read with dl_iterate_phdr, so the analysis can turn
// addresses into symbols. Sent at start and whenever the loader's
// add/remove counters change (dlopen / dlclose).
#pragma once

#include <cstdint>

#include "writer/socket_sink.h"

namespace memframe::agent {

// True (and remembers the new state) if objects were loaded or unloaded
// since the previous call. The first call is always true.
bool LoadedObjectsChanged();

void EncodeModuleMap(SocketSink& sink, uint64_t ticks);

}  // namespace memframe::agent
