// Runs a function a known number of calls deep, so stack-capture costs can be
// measured at a given depth.
//
// This lives in its own shared library on purpose: the agent cuts every
// leading frame that lies in the object holding its own code, and in
// hook_microbench the agent core is linked statically into the executable.
// Frames from this library are therefore never cut.
#pragma once

namespace memframe::bench {

using DepthFn = void (*)(void* arg);

// Calls fn(arg) from `depth` nested, non-inlined frames of this library.
__attribute__((visibility("default"))) void CallAtDepth(int depth, DepthFn fn, void* arg);

}  // namespace memframe::bench
