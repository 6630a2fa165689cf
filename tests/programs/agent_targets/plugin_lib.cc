// A plugin the hosts load with dlopen: its allocations must be recorded
// (even when loaded with RTLD_DEEPBIND) and its frames symbolized (even
// after dlclose).
#include <cstdlib>

#include "host_truth.h"

extern "C" void* plugin_allocate() { return malloc(memframe::targets::kPluginBlockSize); }
