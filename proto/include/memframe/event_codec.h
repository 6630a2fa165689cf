// EventBatch <-> plain events, for the readers (the analysis, tests, tools).
// The agent has an allocation-free encoder of its own
// (agent/writer/packet_encoder.cc); both keep the model of event_refs.h.
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

 private:
  struct State;
  bool DecodeColumns(const EventBatch& batch, std::vector<PlainEvent>* out, std::string* error);
  uint32_t version_;
  std::unique_ptr<State> state_;
  bool broken_ = false;
};

// Encodes what the agent encodes, through libprotobuf: the test fixtures and
// tools that write captures by hand. One encoder per stream; batches are
// encoded in the order they will be written. Frames within a batch must not
// step by 2^32 or more (the agent starts a new batch there).
class EventBatchEncoder {
 public:
  // `tick_shift`: time in units of 2^tick_shift ticks (event_refs.h,
  // ToUnits); 0 keeps every tick.
  explicit EventBatchEncoder(uint32_t tick_shift = 0);
  ~EventBatchEncoder();
  void Encode(uint32_t thread_id, const PlainEvent* events, size_t count, EventBatch* out);

 private:
  struct State;
  std::unique_ptr<State> state_;
  uint32_t tick_shift_;
};

}  // namespace memframe::wire
