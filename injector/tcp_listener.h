// A listening TCP socket on the loopback interface, for agents that cannot
// reach the recorder's Unix socket: the Windows agent under Wine
// (`memframe run --tcp`, MEMFRAME_TCP).
#pragma once

#include <string>

namespace memframe::injector {

// Listens on 127.0.0.1 at a port the kernel picks; returns the socket (close
// it when done) and sets *port, or -1 with *error set.
int ListenOnLoopback(int* port, std::string* error);

}  // namespace memframe::injector
