// The steps every agent takes to record, whichever platform loaded it: the
// capture settings of its configuration, then a stream's Hello and writer.
// The rest is the platform's: what it knows of its process (agent_runtime.cc
// reads /proc, the Windows agent asks its loader), when it starts (a
// constructor, a fork child, an attach; MemframeStart) and its frame
// sources (the Linux presents have fixed marker ids, Windows' are named).
#pragma once

#include "runtime/config.h"
#include "writer/packet_encoder.h"
#include "writer/socket_sink.h"

namespace memframe::agent {

// Stack depth, which events carry stacks, the stack table and what a full
// buffer does. False (after a warning) when the stack table cannot be
// reserved: then nothing can be recorded.
bool ApplyCaptureConfig(const Config& config);

// Stamps `hello` (which says who the process is: pid, ppid, executable,
// command line, attached) with the start and the configured stack depth,
// and starts the writer on the connected `sink`: recording from then on.
// False, with the sink closed, when the writer cannot start.
// `final_packets`: the platform's packets before EndOfStream;
// `modules_loaded`: what the writer does when modules were loaded
// (WriterOptions).
bool StartStream(SocketSink& sink, HelloInfo hello, const Config& config,
                 void (*final_packets)(SocketSink& sink) = nullptr, bool (*modules_loaded)() = nullptr);

}  // namespace memframe::agent
