// Where a stream's events live in memory: compressed chunks, read back one
// chunk at a time.
//
// A capture holds up to hundreds of millions of events; as 40-byte Event
// structs 100 M of them would need 4 GB. The store keeps them in chunks of
// kChunkEvents, each delta+varint coded column by column (like the wire's
// EventBatch) and then zstd-compressed: a few bytes an event. Only the open
// chunk at the end is kept as plain Events until it is full.
//
// Reading decodes a whole chunk into a buffer the iterator owns, so a full
// pass costs one decode per chunk and several iterators (on several threads)
// never share a buffer. operator[] is for spot checks; it decodes the chunk
// holding the index (one chunk is cached, under a lock).
//
// The interface is the part of std::vector<Event> that the analyses and the
// tests use: range-for, size(), empty(), operator[], begin/end, push_back and
// assignment from a list. Events are read-only once stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <vector>

#include "memframe/analysis/event.h"

namespace memframe::analysis {

class EventStore {
 public:
  static constexpr size_t kChunkEvents = 8192;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Event;
    using difference_type = std::ptrdiff_t;
    using pointer = const Event*;
    using reference = const Event&;

    const_iterator() = default;
    const Event& operator*() const;
    const Event* operator->() const { return &**this; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++index_;
      return old;
    }
    const_iterator& operator+=(difference_type n) {
      index_ = static_cast<size_t>(static_cast<difference_type>(index_) + n);
      return *this;
    }
    friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
    }
    bool operator==(const const_iterator& other) const { return index_ == other.index_; }
    size_t index() const { return index_; }

   private:
    friend class EventStore;
    const_iterator(const EventStore* store, size_t index) : store_(store), index_(index) {}

    const EventStore* store_ = nullptr;
    size_t index_ = 0;
    // The decoded chunk the iterator stands in; copies share it, so a
    // reference taken from one stays valid while any copy is on that chunk.
    mutable std::shared_ptr<std::vector<Event>> decoded_;
    mutable size_t decoded_chunk_ = SIZE_MAX;
  };
  using iterator = const_iterator;
  using value_type = Event;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = const Event&;
  using const_reference = const Event&;

  EventStore();
  EventStore(std::initializer_list<Event> events);
  ~EventStore();
  EventStore(const EventStore& other);
  EventStore& operator=(const EventStore& other);
  EventStore(EventStore&& other) noexcept;
  EventStore& operator=(EventStore&& other) noexcept;
  EventStore& operator=(std::initializer_list<Event> events);

  void push_back(const Event& event);
  void clear();
  // Passes every event, in order, to `edit`, which may change it, and keeps
  // those for which it returns true. Chunks are freed as they are read, so
  // memory does not double.
  void Rewrite(const std::function<bool(Event&)>& edit);

  size_t size() const { return sealed_events() + tail_.size(); }
  bool empty() const { return size() == 0; }
  // By value: the event is decoded on demand.
  Event operator[](size_t index) const;
  Event front() const { return (*this)[0]; }
  Event back() const { return (*this)[size() - 1]; }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size()); }

  // Chunk c holds events [c * kChunkEvents, (c + 1) * kChunkEvents); the last
  // one may be partial (the open tail).
  size_t chunk_count() const { return (size() + kChunkEvents - 1) / kChunkEvents; }
  // Replaces *out with the events of chunk `chunk`.
  void DecodeChunk(size_t chunk, std::vector<Event>* out) const;
  // For a consumer that reads the store once, front to back (the loader's
  // merge): frees the compressed chunks before `chunk`. Reading them
  // afterwards is a bug.
  void ReleaseChunksBefore(size_t chunk);

  // Bytes held by the events (compressed chunks, the open tail, the chunk
  // table): what the memory budget of bench.capture_scale counts
  // (tests/bench/README.md, "Reading that scales").
  size_t memory_bytes() const;

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;  // zstd frame of the column-coded chunk
    uint32_t size = 0;                 // compressed bytes
    uint32_t raw_size = 0;             // column-coded bytes before zstd
  };
  struct Cache;

  size_t sealed_events() const { return chunks_.size() * kChunkEvents; }
  void Seal();

  std::vector<Chunk> chunks_;  // every sealed chunk holds exactly kChunkEvents
  std::vector<Event> tail_;    // the open chunk
  size_t compressed_bytes_ = 0;
  std::unique_ptr<Cache> cache_;  // operator[]'s one decoded chunk
};

}  // namespace memframe::analysis
