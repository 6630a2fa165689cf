// EventBatch -> plain events, for the readers (the analysis, tests, tools).
// The one encoder is the agent's (agent/writer/packet_encoder.cc; tests and
// tools run it through tests/support/agent_stream_encoder.h); both keep the
// model of event_refs.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memframe.pb.h"

namespace memframe::wire {

struct PlainEvent {
  uint32_t kind = 0;  // PackKind(EventKind, Family, flags)
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t stack_id = 0;
  uint64_t ticks = 0;
  uint64_t frame = 0;
  uint32_t duration = 0;
  uint32_t heap = 0;  // ALLOC: its private heap's allocator id (EventBatch.heap), else 0
};

// Decodes the EventBatches of one agent stream, in the stream's order: a
// batch may name blocks of earlier batches (of any thread of the stream).
class EventBatchDecoder {
 public:
  // `protocol_version`: the stream's Hello (kOldestReadableProtocol and up).
  explicit EventBatchDecoder(uint32_t protocol_version);
  ~EventBatchDecoder();

  // Appends the batch's events to *out. False with *error, appending
  // nothing, when the columns do not fit together, a reference names
  // nothing or a frame number wraps past 2^64; every later batch is then
  // refused too, as references after it could no longer be followed.
  bool Decode(const EventBatch& batch, std::vector<PlainEvent>* out, std::string* error);

  // A kept window (FORMAT.md, "Kept windows"): the recorder saves what the
  // batches so far leave for the later ones to name, and a reader of the
  // window starts from it instead of from the stream's first batch. Save
  // fills only the reference fields of *state; Restore is false with
  // *error for a state no encoder could have left (protocol version 1
  // streams have none: Save leaves *state empty, Restore accepts only that).
  void SaveState(WindowStart* state) const;
  bool RestoreState(const WindowStart& state, std::string* error);

 private:
  struct State;
  bool DecodeColumns(const EventBatch& batch, std::vector<PlainEvent>* out, std::string* error);
  uint32_t version_;
  std::unique_ptr<State> state_;
  bool broken_ = false;
};

}  // namespace memframe::wire
