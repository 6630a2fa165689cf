// What holds writer/socket_sink.h's connection on Linux: an OwnedFd, which
// the game may close or reuse at any time (runtime/owned_fd.h).
#pragma once

#include "runtime/owned_fd.h"

namespace memframe::agent {
using SinkSocket = OwnedFd;
}  // namespace memframe::agent
