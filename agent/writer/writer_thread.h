// The writer thread: drains every thread's buffer, encodes batches and
// streams them to the recorder. It holds the recursion guard for its whole
// life (its own allocations are never recorded) and blocks all signals (a
// game's signal handler must never run on it).
#pragma once

#include "writer/packet_encoder.h"

namespace memframe::agent {

// Sends the stream's opening packets and starts the thread. The sink must be
// connected. Returns false if the thread could not be started.
struct WriterOptions {
  // Until the game presents or marks a frame, end a frame every this many
  // ns (0: never). Lets programs without a swap call still be cut in frames.
  uint64_t time_slice_ns = 0;
  // Packets of the platform's to send after the last drain, before
  // EndOfStream (the Windows agent's symbol names); null: none.
  void (*final_packets)(SocketSink& sink) = nullptr;
  // Called on the writer thread when the loader's objects changed (checked
  // every 100 ms), and again at the next check while it returns true (a
  // module was still being loaded); null: nothing.
  bool (*modules_loaded)() = nullptr;
};

bool StartWriter(SocketSink* sink, const HelloInfo& hello, const WriterOptions& options);

// Final drain, EndOfStream, close. Waits at most `timeout_ms` for the writer
// (a stuck recorder must not hang the game's exit).
void StopWriter(const char* reason, int timeout_ms);

// Waits (at most `timeout_ms`) until the writer has run one full cycle
// that started after this call: everything pushed before is sent and the
// module map is current. For dlclose, which is about to unmap a library.
bool SyncWithWriter(int timeout_ms);

// After StopWriter at a detach: gives back the memory only the writer
// used (its sink's buffer, its tables, the encoder's state), if the writer
// ended; StartWriter maps it again. False if the writer is still running.
bool ReleaseWriterMemory();

// A new stream (agent_runtime.cc ForgetStream): forget the old writer
// (without touching its connection) so a new one can start.
void ForgetWriterAfterFork();

}  // namespace memframe::agent
