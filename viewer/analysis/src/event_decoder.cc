#include "event_decoder.h"

namespace memframe::analysis {

namespace {

// Names the first column whose length differs from `kind`'s.
const char* MismatchedColumn(const wire::EventBatch& b) {
  const int n = b.kind_size();
  if (b.address_delta_size() != n) return "address_delta";
  if (b.size_size() != n) return "size";
  if (b.stack_id_size() != n) return "stack_id";
  if (b.ticks_delta_size() != n) return "ticks_delta";
  if (b.frame_delta_size() != n) return "frame_delta";
  if (b.duration_ticks_size() != n) return "duration_ticks";
  return nullptr;
}

int ColumnSize(const wire::EventBatch& b, const std::string& column) {
  if (column == "address_delta") return b.address_delta_size();
  if (column == "size") return b.size_size();
  if (column == "stack_id") return b.stack_id_size();
  if (column == "ticks_delta") return b.ticks_delta_size();
  if (column == "frame_delta") return b.frame_delta_size();
  return b.duration_ticks_size();
}

}  // namespace

bool DecodeEventBatch(const wire::EventBatch& batch, uint16_t thread, uint64_t* last_ticks, uint64_t* backwards,
                      std::vector<Event>* out, std::string* error) {
  if (const char* column = MismatchedColumn(batch)) {
    *error = "corrupt batch of thread " + std::to_string(batch.thread_id()) + ": " + std::to_string(batch.kind_size()) +
             " kinds but " + std::to_string(ColumnSize(batch, column)) + " " + column + " entries";
    return false;
  }
  const int n = batch.kind_size();
  // Frame numbers are any 64-bit values (the tables are keyed by the frames
  // that occur, frame_range.h), and a thread's frames may even go backwards
  // between batches without harming any analysis. What cannot be right is a
  // number that wraps past 2^64 while the deltas are added up.
  {
    uint64_t f = batch.base_frame();
    bool wraps = false;
    for (int i = 0; i < n && !wraps; ++i) wraps = __builtin_add_overflow(f, uint64_t{batch.frame_delta(i)}, &f);
    if (wraps) {
      *error = "corrupt batch of thread " + std::to_string(batch.thread_id()) +
               ": a frame number past 2^64 (base " + std::to_string(batch.base_frame()) + ")";
      return false;
    }
  }
  // The address column restarts from 0 in every batch; ticks and frames
  // restart from the batch's bases.
  uint64_t address = 0;
  uint64_t ticks = batch.base_ticks();
  uint64_t frame = batch.base_frame();
  for (int i = 0; i < n; ++i) {
    address += static_cast<uint64_t>(batch.address_delta(i));
    ticks += batch.ticks_delta(i);
    frame += batch.frame_delta(i);
    Event e;
    if (ticks < *last_ticks) {
      ++*backwards;
      e.ticks = *last_ticks;
    } else {
      e.ticks = ticks;
      *last_ticks = ticks;
    }
    e.address = address;
    e.size = batch.size(i);
    e.stack_id = batch.stack_id(i);
    e.frame = frame;
    e.duration_ticks = batch.duration_ticks(i);
    e.thread = thread;
    e.packed_kind = static_cast<uint8_t>(batch.kind(i));
    out->push_back(e);
  }
  return true;
}

}  // namespace memframe::analysis
