// EventBatch columns -> Event structs (FORMAT.md, "Events").
#pragma once

#include <string>
#include <vector>

#include "memframe.pb.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/event_codec.h"

namespace memframe::analysis {

// Appends the batch's events to *out, decoded by its stream's `decoder`.
// `thread` is the index the events get; `*last_ticks` is the thread's latest
// tick: a tick below it (a clock glitch) is raised to it so that sorting by
// ticks cannot reorder the thread's own events, and *backwards counts those.
// Returns false with *error, appending nothing, on a damaged batch
// (wire::EventBatchDecoder::Decode says which).
bool DecodeEventBatch(wire::EventBatchDecoder& decoder, const wire::EventBatch& batch, uint16_t thread,
                      uint64_t* last_ticks, uint64_t* backwards, std::vector<Event>* out, std::string* error);

}  // namespace memframe::analysis
