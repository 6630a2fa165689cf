// Events put into ring records as a thread's hooks put them
// (agent/buffer/ring_record.h), for tests and benchmarks that give the
// agent's encoder events made by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "buffer/ring_record.h"
#include "capture/event.h"
#include "writer/packet_encoder.h"

namespace memframe::test_support {

// The records one thread's hooks write for `events`, from a fresh buffer.
inline std::vector<agent::RingRecord> ToRingRecords(const agent::Event* events, size_t count) {
  std::vector<agent::RingRecord> out(count * agent::RecordPacker::kMaxRecords);
  agent::RecordPacker packer;
  uint64_t at = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t records = packer.Count(events[i]);
    packer.Write(events[i], out.data(), at, UINT64_MAX);
    at += records;
  }
  out.resize(at);
  return out;
}

// EncodeEventBatch of `events` as one thread's fresh ring holds them.
inline uint64_t EncodeEvents(agent::SocketSink& sink, uint32_t tid, const agent::Event* events, int count,
                             uint64_t dropped) {
  const std::vector<agent::RingRecord> records = ToRingRecords(events, static_cast<size_t>(count));
  agent::RecordReader reader;
  return agent::EncodeEventBatch(sink, tid, records.data(), static_cast<int>(records.size()), dropped, &reader);
}

}  // namespace memframe::test_support
