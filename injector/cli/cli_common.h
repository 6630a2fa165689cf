// What every `memframe` subcommand shares.
#pragma once

#include <iostream>
#include <string>

#include "memframe/command_line.h"

namespace memframe::injector {

// `memframe run` exits with the program's status, so its own failures use
// the codes env, timeout and nohup use, which a program rarely exits with:
// 125 memframe failed (bad usage, no agent, cannot write the capture), 126
// the program was found but cannot be run, 127 the program was not found.
constexpr int kExitRunFailed = 125;
constexpr int kExitRunCannotExecute = 126;
constexpr int kExitRunNotFound = 127;

// A usage error: "memframe: error: MESSAGE" and where the usage is; returns
// `status`.
inline int UsageError(const std::string& command, const std::string& message, int status = kExitMemframeError) {
  ErrorLine(std::cerr) << message << "\n(see memframe " << command << " --help)\n";
  return status;
}

#ifndef MEMFRAME_VERSION
#define MEMFRAME_VERSION "unknown"
#endif
constexpr const char* kMemframeVersion = MEMFRAME_VERSION;

}  // namespace memframe::injector
