// What every `memframe` subcommand shares.
#pragma once

namespace memframe::injector {

// memframe's own failures (bad usage, cannot launch, cannot write) exit with
// this code; `memframe run` otherwise exits with the program's status.
constexpr int kExitMemframeError = 2;

#ifndef MEMFRAME_VERSION
#define MEMFRAME_VERSION "unknown"
#endif
constexpr const char* kMemframeVersion = MEMFRAME_VERSION;

}  // namespace memframe::injector
