// Runs a program with the agent preloaded and a minimal recorder inside the
// test: every connection's packets are parsed with libprotobuf, so agent
// behaviour is checked without the memframe CLI in the way.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "memframe.pb.h"

namespace memframe::testing {

struct AgentRunOptions {
  bool preload = true;           // false: run natively
  bool connect = true;           // false: preload without MEMFRAME_SOCKET (passive agent)
  bool close_after_hello = false;  // the recorder "disappears" once the agent said hello
  int timeout_seconds = 60;
  int stall_ms = 0;  // the recorder reads nothing for this long after accepting (a slow recorder)
  std::vector<std::pair<std::string, std::string>> environment = {};  // set in the program's environment
};

struct DecodedEvent {
  uint32_t tid;
  uint32_t kind;  // packed (format.h)
  uint64_t address;
  uint64_t size;
  uint32_t stack_id;
  uint64_t ticks;
  uint64_t frame;
};

struct AgentStream {
  std::vector<wire::Packet> packets;
  std::vector<DecodedEvent> events;  // all EventBatches, in arrival order
  std::map<uint32_t, std::string> markers;  // MarkerDefs: id -> name
  std::map<uint32_t, std::string> thread_names;  // ThreadInfo: tid -> last name sent
  uint64_t dropped_in_batches = 0;   // sum of EventBatch.dropped
  bool ended = false;                // an EndOfStream arrived
  std::string decode_error;          // a batch that did not decode (then it and all later ones are missing)
};

struct AgentRun {
  int exit_code = -1;  // exit status, or 128 + signal
  std::string standard_output;
  std::string standard_error;
  std::vector<AgentStream> streams;  // one per connection, accept order
};

AgentRun RunWithAgent(const std::vector<std::string>& argv, const AgentRunOptions& options = {});

// Counts ALLOC events of exactly `size` bytes.
uint64_t CountAllocs(const AgentStream& stream, uint64_t size);
// FRAME_END events whose entry point (marker) has this name.
uint64_t CountFrameEnds(const AgentStream& stream, const std::string& entry_point);
// Blocks of `size` bytes still live at the end of the stream: addresses
// allocated more often than freed, sized by their last allocation. Counted,
// not replayed in tick order: the agent's stamps of a block handed between
// threads may come out in the wrong order, which only the loader's merge
// puts right (viewer/analysis/src/handoff_repair.h).
uint64_t LiveBlocksOfSize(const AgentStream& stream, uint64_t size);

}  // namespace memframe::testing
