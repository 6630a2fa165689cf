#include "capture/stack_table.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "buffer/page_allocator.h"

namespace memframe::agent {

namespace {
// The hash slots come in levels, each a table of its own four or two times
// the one before: 512 KiB (48 Ki stacks), 2 MiB, 8 MiB, 16 MiB (3/4 load
// keeps probes short). Games see 10^4..10^6 distinct stacks; only what is
// mapped is ever resident (the writer commits a level whole, ahead of use:
// page_allocator.h says why), and a program with few stacks keeps only the
// first level (the agent's resident memory, tests/bench/README.md). A new
// stack goes to the first level that is not full; a lookup probes the full
// levels in order on the way (the thread's recent stacks answer most hooks
// before the table). Beyond all of them (2.5 M stacks) a new stack gets id 0
// and is counted (StacksOverflowed; the agent says so at exit).
constexpr int kLevels = 4;
constexpr uint64_t kLevelSlots[kLevels] = {1ull << 16, 1ull << 18, 1ull << 20, 1ull << 21};
constexpr uint64_t MaxIn(int level) { return kLevelSlots[level] / 4 * 3; }
constexpr uint64_t kMaxStacks = MaxIn(0) + MaxIn(1) + MaxIn(2) + MaxIn(3);
// The writer maps and commits the next level once this share of a level is
// used, so that a burst of new stacks (a shader compile: ~15,000 in a frame)
// finds it ready: a game thread maps it only if the writer fell behind.
constexpr uint64_t kMapNextAtShare = 2;  // half full
// Frames of all stacks, back to back, and each id's record, in chunks mapped
// as they are needed: reserving the most they could take up front (over
// half a GiB) would count against a program's address-space limit
// (RLIMIT_AS) whether used or not. A stack's frames never straddle chunks.
constexpr uint64_t kChunkFrames = 1ull << 19;  // 4 MiB of frames
constexpr uint64_t kMaxFrameChunks = 128;      // 512 MiB of frames at most
constexpr uint64_t kRecordsPerChunk = 1ull << 16;  // 1 MiB of records
constexpr uint64_t kMaxRecordChunks = (kMaxStacks + 2 + kRecordsPerChunk - 1) / kRecordsPerChunk;

// A slot is one word, claimed and published whole:
//   bits 32..63  tag: the hash's high half with bit 0 set (0 = empty slot)
//   bits  0..31  id: 0 while the claiming thread publishes, kOverflowId when
//                the table was full
// The index comes from the hash's low bits, so the tag adds 31 others: two
// different stacks share a slot and a tag about once in 2^31 probes, and
// then SameFrames tells them apart.
using Slot = std::atomic<uint64_t>;
constexpr uint32_t kOverflowId = UINT32_MAX;

struct StackRecord {
  uint64_t offset;  // into the frames' logical space (chunk * kChunkFrames + index)
  uint32_t depth;
  uint32_t pad;
};

struct Level {
  std::atomic<Slot*> slots{nullptr};
  std::atomic<uint64_t> used{0};  // slots claimed; at MaxIn the level takes no new stack
};
Level g_levels[kLevels];
std::atomic<uint64_t*> g_frame_chunks[kMaxFrameChunks];
std::atomic<StackRecord*> g_record_chunks[kMaxRecordChunks];
std::atomic<uint32_t> g_next_id{1};
std::atomic<uint64_t> g_frames_used{0};  // end of the frames claimed so far
std::atomic<uint64_t> g_overflowed{0};

constexpr size_t kFrameChunkBytes = sizeof(uint64_t) * kChunkFrames;
constexpr size_t kRecordChunkBytes = sizeof(StackRecord) * kRecordsPerChunk;

// The chunk at `index`, mapped by whichever thread needs it first; null when
// no memory could be had.
template <typename T>
T* ChunkAt(std::atomic<T*>* chunks, uint64_t index, size_t bytes) {
  T* chunk = chunks[index].load(std::memory_order_acquire);
  if (chunk) return chunk;
  T* fresh = static_cast<T*>(MapPages(bytes));
  if (!fresh) return nullptr;
  if (chunks[index].compare_exchange_strong(chunk, fresh, std::memory_order_acq_rel)) return fresh;
  UnmapPages(fresh, bytes);  // another thread was first
  return chunk;
}

// Published ids only: their chunks exist.
StackRecord& RecordOf(uint32_t id) {
  return g_record_chunks[id / kRecordsPerChunk].load(std::memory_order_acquire)[id % kRecordsPerChunk];
}
const uint64_t* FramesAt(uint64_t offset) {
  return g_frame_chunks[offset / kChunkFrames].load(std::memory_order_acquire) + offset % kChunkFrames;
}

// Room for `depth` frames inside one chunk; UINT64_MAX when all are used.
uint64_t ClaimFrames(uint64_t depth) {
  uint64_t used = g_frames_used.load(std::memory_order_relaxed);
  for (;;) {
    uint64_t start = used;
    if (start % kChunkFrames + depth > kChunkFrames) start = (start / kChunkFrames + 1) * kChunkFrames;
    if (start + depth > kChunkFrames * kMaxFrameChunks) return UINT64_MAX;
    if (g_frames_used.compare_exchange_weak(used, start + depth, std::memory_order_relaxed)) return start;
  }
}

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

uint64_t Rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

uint64_t HashFrames(const uint64_t* frames, int depth) {
  // Four independent multiply lanes, mixed once at the end: a single chain
  // of multiplies was the slowest part of interning (its latency, not its
  // work). Collisions only cost a compare: SameFrames decides.
  uint64_t a = 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(depth), b = 0x6a09e667f3bcc909ull,
           c = 0xbb67ae8584caa73bull, d = 0x3c6ef372fe94f82bull;
  int i = 0;
  for (; i + 4 <= depth; i += 4) {
    a = (a ^ frames[i]) * 0xff51afd7ed558ccdull;
    b = (b ^ frames[i + 1]) * 0xc4ceb9fe1a85ec53ull;
    c = (c ^ frames[i + 2]) * 0x9e3779b97f4a7c15ull;
    d = (d ^ frames[i + 3]) * 0xd6e8feb86659fd93ull;
  }
  for (; i < depth; ++i) a = (a ^ frames[i]) * 0xff51afd7ed558ccdull;
  // One Mix over the lanes rotated apart, not four nested ones: the nested
  // Mix calls were a serial chain of ~50 cycles and the hottest lines of
  // InternStack in a perf profile of game_loop_workload.
  uint64_t h = Mix(a ^ Rotl(b, 16) ^ Rotl(c, 32) ^ Rotl(d, 48));
  return h ? h : 1;
}

__attribute__((always_inline)) inline bool SameFrames(uint32_t id, const uint64_t* frames, int depth) {
  const StackRecord& r = RecordOf(id);
  return r.depth == static_cast<uint32_t>(depth) && memcmp(FramesAt(r.offset), frames, sizeof(uint64_t) * depth) == 0;
}

uint32_t WaitForId(Slot& slot) {
  uint32_t id;
  while ((id = static_cast<uint32_t>(slot.load(std::memory_order_acquire))) == 0) {
    // Another thread is copying the frames right now: a few dozen ns.
  }
  return id;
}

// `claimed` is the slot's word as this thread's CAS left it (tag, id 0).
uint32_t Publish(Slot& slot, uint64_t claimed, const uint64_t* frames, int depth) {
  uint32_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  uint64_t offset = id <= kMaxStacks ? ClaimFrames(static_cast<uint64_t>(depth)) : UINT64_MAX;
  uint64_t* chunk = offset == UINT64_MAX ? nullptr
                                         : ChunkAt(g_frame_chunks, offset / kChunkFrames, kFrameChunkBytes);
  StackRecord* records = chunk ? ChunkAt(g_record_chunks, id / kRecordsPerChunk, kRecordChunkBytes) : nullptr;
  if (!records) {
    // Out of room (or of memory): the slot stays claimed by this tag but
    // holds no id, so later lookups of the same stack also get 0 quickly.
    g_overflowed.fetch_add(1, std::memory_order_relaxed);
    slot.store(claimed | kOverflowId, std::memory_order_release);
    return 0;
  }
  memcpy(chunk + offset % kChunkFrames, frames, sizeof(uint64_t) * depth);
  records[id % kRecordsPerChunk].offset = offset;
  records[id % kRecordsPerChunk].depth = static_cast<uint32_t>(depth);
  slot.store(claimed | id, std::memory_order_release);
  return id;
}

// The slots of `level`, mapped by whichever thread needs them first; null
// when no memory could be had.
__attribute__((noinline)) Slot* LevelSlots(int level) {
  Level& l = g_levels[level];
  Slot* slots = l.slots.load(std::memory_order_acquire);
  if (slots) return slots;
  // A level smaller than a huge page takes 4 KiB pages: a huge one would
  // make 2 MiB resident for it (and 512 KiB of small pages fit the TLB).
  const size_t bytes = sizeof(Slot) * kLevelSlots[level];
  auto* fresh = static_cast<Slot*>(bytes < (2u << 20) ? MapPages(bytes) : MapHugePages(bytes));
  if (!fresh) return nullptr;
  if (l.slots.compare_exchange_strong(slots, fresh, std::memory_order_acq_rel)) return fresh;
  UnmapPages(fresh, bytes);  // another thread was first
  return slots;
}

// Looks the stack up in level L (a constant: its mask and limit fold into
// the probe loop) and interns it there if it is absent and the level has
// room. True with *id set when answered; false: try the next level.
template <int L>
bool InternIn(Slot* slots, uint64_t hash, uint64_t tag, const uint64_t* frames, int depth, uint32_t* id) {
  Level& l = g_levels[L];
  constexpr uint64_t kMask = kLevelSlots[L] - 1;
  for (uint64_t i = hash, probes = 0; probes <= kMask; ++i, ++probes) {
    Slot& slot = slots[i & kMask];
    uint64_t seen = slot.load(std::memory_order_acquire);
    if (seen == 0) {
      if (l.used.load(std::memory_order_relaxed) >= MaxIn(L)) return false;  // full: the next level
      if (slot.compare_exchange_strong(seen, tag, std::memory_order_acq_rel)) {
        l.used.fetch_add(1, std::memory_order_relaxed);
        *id = Publish(slot, tag, frames, depth);
        return true;
      }
      // Lost the race for this slot; `seen` now holds the winner's word.
    }
    if ((seen & ~0xffffffffull) == tag) {
      uint32_t found = WaitForId(slot);
      if (found == kOverflowId) {
        g_overflowed.fetch_add(1, std::memory_order_relaxed);
        *id = 0;
        return true;
      }
      if (SameFrames(found, frames, depth)) {
        *id = found;
        return true;
      }
    }
  }
  return false;
}

// Level L and those after it, for stacks the levels before do not hold.
template <int L>
uint32_t InternFrom(uint64_t hash, uint64_t tag, const uint64_t* frames, int depth) {
  if constexpr (L == kLevels) {
    g_overflowed.fetch_add(1, std::memory_order_relaxed);  // every level is full (or no memory)
    return 0;
  } else {
    uint32_t id = 0;
    Slot* slots = LevelSlots(L);
    if (!slots) return InternFrom<kLevels>(hash, tag, frames, depth);
    if (InternIn<L>(slots, hash, tag, frames, depth, &id)) return id;
    return InternFrom<L + 1>(hash, tag, frames, depth);
  }
}

// The levels past the first, for stacks the first does not hold.
__attribute__((noinline)) uint32_t InternBeyondFirst(uint64_t hash, uint64_t tag, const uint64_t* frames,
                                                     int depth) {
  return InternFrom<1>(hash, tag, frames, depth);
}
}  // namespace

bool InitStackTable() { return LevelSlots(0) != nullptr; }

// A stack first seen by two threads at the moment its level fills may be
// interned twice, once in each level, under two ids with the same frames:
// the capture then holds one more stack record, nothing is lost.
uint32_t InternStack(const uint64_t* frames, int depth) {
  Slot* slots = g_levels[0].slots.load(std::memory_order_acquire);
  if (!slots || depth <= 0) return 0;
  uint64_t hash = HashFrames(frames, depth);
  const uint64_t tag = (hash >> 32 | 1) << 32;
  uint32_t id;
  if (__builtin_expect(InternIn<0>(slots, hash, tag, frames, depth, &id), 1)) return id;
  return InternBeyondFirst(hash, tag, frames, depth);
}

const uint64_t* StackFrames(uint32_t id, int* depth) {
  const StackRecord& r = RecordOf(id);
  *depth = static_cast<int>(r.depth);
  return FramesAt(r.offset);
}

namespace {
// Commits [0, want) of `base` from `*done` on, a whole number of pages;
// `limit` is what was reserved. Writer thread only.
void CommitUpTo(void* base, uint64_t* done, uint64_t want, uint64_t limit) {
  want = (want + 4095) & ~4095ull;
  if (want > limit) want = limit;
  if (want <= *done) return;
  PrefaultPages(static_cast<char*>(base) + *done, want - *done);
  *done = want;
}

// The same over a chunked space: maps the chunks [*done, want) falls in
// and commits that part of them.
template <typename T>
void CommitChunksUpTo(std::atomic<T*>* chunks, uint64_t chunk_count, size_t chunk_bytes, uint64_t* done,
                      uint64_t want) {
  want = (want + 4095) & ~4095ull;
  if (want > chunk_count * chunk_bytes) want = chunk_count * chunk_bytes;
  while (*done < want) {
    uint64_t index = *done / chunk_bytes, within = *done % chunk_bytes;
    uint64_t piece = std::min<uint64_t>(want - *done, chunk_bytes - within);
    T* chunk = ChunkAt(chunks, index, chunk_bytes);
    if (!chunk) return;  // no memory now: the game's thread tries again when it needs it
    PrefaultPages(reinterpret_cast<char*>(chunk) + within, piece);
    *done += piece;
  }
}
}  // namespace

void PrefaultStackTable(uint64_t bytes) {
  // Writer thread only: how much of each is committed.
  static uint64_t slots_done[kLevels] = {}, records_done = 0, frames_done = 0;
  if (!g_levels[0].slots.load(std::memory_order_acquire)) return;
  for (int level = 0; level < kLevels; ++level) {
    Slot* slots = g_levels[level].slots.load(std::memory_order_acquire);
    if (!slots && level > 0 &&
        g_levels[level - 1].used.load(std::memory_order_relaxed) * kMapNextAtShare >= MaxIn(level - 1))
      slots = LevelSlots(level);
    if (!slots) break;
    uint64_t* done = &slots_done[level];
    CommitUpTo(slots, done, *done + bytes, sizeof(Slot) * kLevelSlots[level]);
  }
  // The frames and records of new stacks are written in order: keep a
  // margin mapped and committed ahead of them, more than a burst of new
  // stacks fills between two passes, so the game's thread neither maps a
  // chunk nor faults a page every twenty new stacks. The frames' margin is
  // four times the most a pass has seen them grow, at least 1 MiB (a shader
  // compile's ~15,000 stacks in a frame fill ~0.3 MiB between two passes)
  // and at most 4 MiB: a program whose stacks are few keeps only 1 MiB
  // resident for it (tests/bench/README.md, "Resident memory").
  constexpr uint64_t kMinFramesMargin = 1ull << 20, kMaxFramesMargin = 4ull << 20, kRecordsMargin = 256ull << 10;
  static uint64_t frames_seen = 0, most_grown = 0;
  uint64_t ids = g_next_id.load(std::memory_order_relaxed);
  uint64_t frames = g_frames_used.load(std::memory_order_relaxed);
  most_grown = std::max(most_grown, (frames - frames_seen) * sizeof(uint64_t));
  frames_seen = frames;
  const uint64_t frames_margin = std::clamp(4 * most_grown, kMinFramesMargin, kMaxFramesMargin);
  CommitChunksUpTo(g_record_chunks, kMaxRecordChunks, kRecordChunkBytes, &records_done,
                   ids * sizeof(StackRecord) + kRecordsMargin);
  CommitChunksUpTo(g_frame_chunks, kMaxFrameChunks, kFrameChunkBytes, &frames_done,
                   frames * sizeof(uint64_t) + frames_margin);
}

uint64_t StackTableSlotBytesMapped() {
  uint64_t bytes = 0;
  for (int level = 0; level < kLevels; ++level)
    if (g_levels[level].slots.load(std::memory_order_acquire)) bytes += sizeof(Slot) * kLevelSlots[level];
  return bytes;
}

uint64_t StackTableCapacity() { return kMaxStacks; }
uint32_t StackCount() { return g_next_id.load(std::memory_order_acquire); }
uint64_t StacksOverflowed() { return g_overflowed.load(std::memory_order_relaxed); }

}  // namespace memframe::agent
