// Encodes each Packet kind into the sink. Runs on the writer thread only.
// Field numbers come from the protoc-generated constants.
#pragma once

#include <cstdint>

#include "buffer/ring_record.h"
#include "capture/event.h"
#include "writer/socket_sink.h"

namespace memframe::agent {

struct OwnAllocatorReport;
struct GpuRecord;
struct AllocatorApiReport;

struct HelloInfo {
  uint32_t pid;
  uint32_t ppid;
  const char* executable;
  const char* cmdline;  // NUL-separated arguments
  size_t cmdline_size;
  uint64_t start_ticks;
  uint64_t start_monotonic_ns;
  uint64_t start_unix_ns;
  uint32_t max_stack_depth;
  bool attached;  // memframe attach: the process ran before the agent came
  const OwnAllocatorReport* own_allocator;  // null unless the executable defines its own
  const AllocatorApiReport* allocator_apis;  // the libraries whose own API is hooked
  size_t allocator_api_count;
};

void EncodeHello(SocketSink& sink, const HelloInfo& hello);
void EncodeClockSync(SocketSink& sink, uint64_t ticks, uint64_t monotonic_ns);
// Names of the markers with ids in [first, end).
void EncodeMarkerDefs(SocketSink& sink, uint32_t first, uint32_t end);
// The declared allocators with ids in [first, end).
void EncodeAllocatorDefs(SocketSink& sink, uint32_t first, uint32_t end);
void EncodeThreadInfo(SocketSink& sink, uint32_t tid, const char* name, uint64_t first_ticks, bool exited);
// Defines the stacks with the given ids.
void EncodeStackDefs(SocketSink& sink, const uint32_t* ids, int count);
// One thread's events, read from its ring's records by `reader` (which
// goes on from where the thread's last batch left it), columnar and
// delta-coded: one EventBatch packet, or several when a frame delta would
// not fit the wire's uint32 column; none when the records hold no event (the
// drop count is then not sent). Frees and allocations may name blocks of
// earlier batches of the stream (memframe/event_refs.h): call
// ResetEventEncoder before a new stream's first batch. Returns the events
// sent.
uint64_t EncodeEventBatch(SocketSink& sink, uint32_t tid, const RingRecord* records, int count, uint64_t dropped,
                          RecordReader* reader);
// Forgets every block earlier batches named: a new connection (a followed
// child's, after fork) starts a stream the recorder decodes from nothing.
void ResetEventEncoder();
// Gives the encoder's memory back (a detach, the writer ended); the next
// batch maps it again.
void ReleaseEventEncoder();
// GPU object events (gpu/gpu_queue.h), with the drops since the last packet.
void EncodeGpuEvents(SocketSink& sink, const GpuRecord* records, int count, uint64_t dropped);
void EncodeEndOfStream(SocketSink& sink, uint64_t events, uint64_t dropped, uint64_t last_frame, const char* reason,
                       uint64_t unrecorded_in_signal_handlers);

// Upper bound of the bytes one event takes in a batch: the room of its
// entries in every column (the encoder gives each column a region of its
// own, sized as if every event had an entry there).
constexpr size_t kMaxBytesPerEvent = 88;

}  // namespace memframe::agent
