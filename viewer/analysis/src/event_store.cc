#include "memframe/analysis/event_store.h"

#include <zstd.h>

#include <cassert>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "memframe/varint.h"

namespace memframe::analysis {

// Layout of one chunk before zstd: nine columns, each one value per event,
// one after the other (the event count is known, so no column needs a
// length). Every predictor restarts at zero in each chunk, so any chunk
// decodes on its own.
//
//   packed_kind     1 byte
//   thread          varint
//   ticks           zigzag varint, delta from the previous event
//   address         varint, as is: a freed address repeats one allocated
//                   shortly before, and zstd finds the repeat only when the
//                   bytes are the address itself rather than a delta
//   size            varint
//   stack_id        varint
//   frame           zigzag varint, delta from the previous event
//   duration_ticks  varint
//   heap            varint (mostly 0: a byte an event before zstd, ~nothing after)
//
// Columns put alike values side by side, which is what lets zstd turn the
// chunk into a few bytes an event.

namespace {

using wire::ReadVarint;
using wire::UnZigZag;
using wire::WriteVarint;
using wire::ZigZag;

// zstd level 1: compression runs once per chunk at load time and must keep
// up with reading the capture; higher levels gain little on varint columns.
constexpr int kZstdLevel = 1;
constexpr size_t kMaxRawBytesPerEvent = 1 + 7 * wire::kMaxVarintBytes + 3;

// One compression and one decompression context per thread: creating them
// per chunk would cost more than compressing a chunk.
struct ZstdContexts {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
};
ZstdContexts& Contexts() {
  thread_local ZstdContexts contexts;
  return contexts;
}

size_t EncodeColumns(const Event* events, size_t n, uint8_t* out) {
  uint8_t* p = out;
  for (size_t i = 0; i < n; ++i) *p++ = events[i].packed_kind;
  for (size_t i = 0; i < n; ++i) p = WriteVarint(p, events[i].thread);
  uint64_t prev = 0;
  for (size_t i = 0; i < n; ++i) {
    p = WriteVarint(p, ZigZag(static_cast<int64_t>(events[i].ticks - prev)));
    prev = events[i].ticks;
  }
  for (size_t i = 0; i < n; ++i) p = WriteVarint(p, events[i].address);
  for (size_t i = 0; i < n; ++i) p = WriteVarint(p, events[i].size);
  for (size_t i = 0; i < n; ++i) p = WriteVarint(p, events[i].stack_id);
  // 64-bit frames cost nothing extra: deltas stay a byte (mostly 0).
  uint64_t prev_frame = 0;
  for (size_t i = 0; i < n; ++i) {
    p = WriteVarint(p, ZigZag(static_cast<int64_t>(events[i].frame - prev_frame)));
    prev_frame = events[i].frame;
  }
  for (size_t i = 0; i < n; ++i) p = WriteVarint(p, events[i].duration_ticks);
  for (size_t i = 0; i < n; ++i) p = WriteVarint(p, events[i].heap);
  return static_cast<size_t>(p - out);
}

// The bytes were written by EncodeColumns in this process, so a failed read
// is memory corruption or a bug, never bad input: stop loudly.
inline uint64_t Next(const uint8_t** p, const uint8_t* end) {
  // Most values fit in one byte (kinds, threads, frame deltas, small sizes).
  if (*p < end && **p < 0x80) return *(*p)++;
  uint64_t v = 0;
  if (!ReadVarint(p, end, &v)) {
    assert(!"EventStore chunk is corrupt");
    abort();
  }
  return v;
}

void DecodeColumns(const uint8_t* p, const uint8_t* end, size_t n, Event* out) {
  for (size_t i = 0; i < n; ++i) out[i].packed_kind = *p++;
  for (size_t i = 0; i < n; ++i) out[i].thread = static_cast<uint16_t>(Next(&p, end));
  uint64_t prev = 0;
  for (size_t i = 0; i < n; ++i) out[i].ticks = prev += static_cast<uint64_t>(UnZigZag(Next(&p, end)));
  for (size_t i = 0; i < n; ++i) out[i].address = Next(&p, end);
  for (size_t i = 0; i < n; ++i) out[i].size = Next(&p, end);
  for (size_t i = 0; i < n; ++i) out[i].stack_id = static_cast<uint32_t>(Next(&p, end));
  uint64_t prev_frame = 0;
  for (size_t i = 0; i < n; ++i) out[i].frame = prev_frame += static_cast<uint64_t>(UnZigZag(Next(&p, end)));
  for (size_t i = 0; i < n; ++i) out[i].duration_ticks = static_cast<uint32_t>(Next(&p, end));
  for (size_t i = 0; i < n; ++i) out[i].heap = static_cast<uint32_t>(Next(&p, end));
}

}  // namespace

struct EventStore::Cache {
  std::mutex mutex;
  size_t chunk = SIZE_MAX;
  std::vector<Event> events;
};

EventStore::EventStore() : cache_(std::make_unique<Cache>()) {}
EventStore::EventStore(std::initializer_list<Event> events) : EventStore() { *this = events; }
EventStore::~EventStore() = default;

EventStore::EventStore(const EventStore& other) : EventStore() { *this = other; }

EventStore& EventStore::operator=(const EventStore& other) {
  if (this == &other) return *this;
  clear();
  chunks_.reserve(other.chunks_.size());
  for (const Chunk& c : other.chunks_) {
    Chunk copy;
    copy.size = c.size;
    copy.raw_size = c.raw_size;
    if (c.bytes) {
      copy.bytes.reset(new uint8_t[c.size]);
      memcpy(copy.bytes.get(), c.bytes.get(), c.size);
    }
    chunks_.push_back(std::move(copy));
  }
  tail_ = other.tail_;
  compressed_bytes_ = other.compressed_bytes_;
  return *this;
}

EventStore::EventStore(EventStore&& other) noexcept
    : chunks_(std::move(other.chunks_)),
      tail_(std::move(other.tail_)),
      compressed_bytes_(other.compressed_bytes_),
      cache_(std::make_unique<Cache>()) {
  other.chunks_.clear();
  other.tail_.clear();
  other.compressed_bytes_ = 0;
}

EventStore& EventStore::operator=(EventStore&& other) noexcept {
  if (this == &other) return *this;
  chunks_ = std::move(other.chunks_);
  tail_ = std::move(other.tail_);
  compressed_bytes_ = other.compressed_bytes_;
  other.chunks_.clear();
  other.tail_.clear();
  other.compressed_bytes_ = 0;
  std::lock_guard lock(cache_->mutex);
  cache_->chunk = SIZE_MAX;
  return *this;
}

EventStore& EventStore::operator=(std::initializer_list<Event> events) {
  clear();
  for (const Event& e : events) push_back(e);
  return *this;
}

void EventStore::clear() {
  chunks_.clear();
  tail_.clear();
  tail_.shrink_to_fit();
  compressed_bytes_ = 0;
  std::lock_guard lock(cache_->mutex);
  cache_->chunk = SIZE_MAX;
}

void EventStore::push_back(const Event& event) {
  // Grow the tail by doubling up to one chunk: a thread with ten events
  // must not cost a whole chunk of plain Events.
  tail_.push_back(event);
  if (tail_.size() == kChunkEvents) Seal();
}

void EventStore::Seal() {
  thread_local std::vector<uint8_t> raw, packed;
  raw.resize(tail_.size() * kMaxRawBytesPerEvent);
  size_t raw_size = EncodeColumns(tail_.data(), tail_.size(), raw.data());
  packed.resize(ZSTD_compressBound(raw_size));
  size_t size = ZSTD_compressCCtx(Contexts().cctx, packed.data(), packed.size(), raw.data(), raw_size, kZstdLevel);
  if (ZSTD_isError(size)) abort();  // only out of memory can make this fail
  Chunk chunk;
  chunk.bytes.reset(new uint8_t[size]);
  memcpy(chunk.bytes.get(), packed.data(), size);
  chunk.size = static_cast<uint32_t>(size);
  chunk.raw_size = static_cast<uint32_t>(raw_size);
  compressed_bytes_ += size;
  chunks_.push_back(std::move(chunk));
  tail_.clear();  // keeps its capacity: the next chunk fills it again
}

void EventStore::Rewrite(const std::function<bool(Event&)>& edit) {
  EventStore out;
  std::vector<Event> buffer;
  for (size_t c = 0; c < chunk_count(); ++c) {
    DecodeChunk(c, &buffer);
    ReleaseChunksBefore(c + 1);
    for (Event& e : buffer)
      if (edit(e)) out.push_back(e);
  }
  *this = std::move(out);
}

void EventStore::DecodeChunk(size_t chunk, std::vector<Event>* out) const {
  if (chunk >= chunks_.size()) {
    assert(chunk == chunks_.size());
    out->assign(tail_.begin(), tail_.end());
    return;
  }
  const Chunk& c = chunks_[chunk];
  if (!c.bytes) {
    assert(!"EventStore: chunk was released");
    abort();
  }
  thread_local std::vector<uint8_t> raw;
  raw.resize(c.raw_size);
  size_t got = ZSTD_decompressDCtx(Contexts().dctx, raw.data(), raw.size(), c.bytes.get(), c.size);
  if (ZSTD_isError(got) || got != c.raw_size) abort();  // our own bytes: memory corruption
  out->resize(kChunkEvents);
  DecodeColumns(raw.data(), raw.data() + raw.size(), kChunkEvents, out->data());
}

void EventStore::ReleaseChunksBefore(size_t chunk) {
  for (size_t c = 0; c < chunk && c < chunks_.size(); ++c) {
    if (!chunks_[c].bytes) continue;
    compressed_bytes_ -= chunks_[c].size;
    chunks_[c].bytes.reset();
  }
}

Event EventStore::operator[](size_t index) const {
  assert(index < size());
  if (index >= sealed_events()) return tail_[index - sealed_events()];
  std::lock_guard lock(cache_->mutex);
  size_t chunk = index / kChunkEvents;
  if (cache_->chunk != chunk) {
    DecodeChunk(chunk, &cache_->events);
    cache_->chunk = chunk;
  }
  return cache_->events[index % kChunkEvents];
}

size_t EventStore::memory_bytes() const {
  return compressed_bytes_ + chunks_.capacity() * sizeof(Chunk) + tail_.capacity() * sizeof(Event);
}

const Event& EventStore::const_iterator::operator*() const {
  size_t sealed = store_->sealed_events();
  if (index_ >= sealed) return store_->tail_[index_ - sealed];
  size_t chunk = index_ / kChunkEvents;
  if (decoded_chunk_ != chunk) {
    // Reuse the buffer unless another iterator still reads it.
    if (!decoded_ || decoded_.use_count() > 1) decoded_ = std::make_shared<std::vector<Event>>();
    store_->DecodeChunk(chunk, decoded_.get());
    decoded_chunk_ = chunk;
  }
  return (*decoded_)[index_ % kChunkEvents];
}

}  // namespace memframe::analysis
