#include "capture/stack_table.h"

#include <atomic>
#include <cstring>

#include "buffer/page_allocator.h"

namespace memframe::agent {

namespace {
// 4 M slots (64 MiB reserved): games see 10^4..10^6 distinct stacks. The
// table refuses new stacks at 3/4 load to keep probes short.
constexpr uint64_t kSlots = 1ull << 22;
constexpr uint64_t kMaxStacks = kSlots / 4 * 3;
// Frames of all stacks, back to back (reserved, committed as used).
constexpr uint64_t kArenaFrames = 64ull << 20;  // 512 MiB reserved

struct Slot {
  std::atomic<uint64_t> hash;  // 0 = empty
  std::atomic<uint32_t> id;    // 0 = being published
  uint32_t pad;
};

struct StackRecord {
  uint64_t offset;  // into the arena
  uint32_t depth;
  uint32_t pad;
};

Slot* g_slots = nullptr;
StackRecord* g_records = nullptr;  // indexed by id
uint64_t* g_arena = nullptr;
std::atomic<uint32_t> g_next_id{1};
std::atomic<uint64_t> g_arena_used{0};
std::atomic<uint64_t> g_overflowed{0};

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

bool SameFrames(uint32_t id, const uint64_t* frames, int depth) {
  const StackRecord& r = g_records[id];
  return r.depth == static_cast<uint32_t>(depth) && memcmp(g_arena + r.offset, frames, sizeof(uint64_t) * depth) == 0;
}

uint32_t WaitForId(Slot& slot) {
  uint32_t id;
  while ((id = slot.id.load(std::memory_order_acquire)) == 0) {
    // Another thread is copying the frames right now: a few dozen ns.
  }
  return id;
}

uint32_t Publish(Slot& slot, const uint64_t* frames, int depth) {
  uint32_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  uint64_t offset = g_arena_used.fetch_add(static_cast<uint64_t>(depth), std::memory_order_relaxed);
  if (id > kMaxStacks || offset + static_cast<uint64_t>(depth) > kArenaFrames) {
    // Out of room: the slot stays claimed by this hash but points at id 0's
    // record, so later lookups of the same stack also get 0 quickly.
    g_overflowed.fetch_add(1, std::memory_order_relaxed);
    slot.id.store(UINT32_MAX, std::memory_order_release);
    return 0;
  }
  memcpy(g_arena + offset, frames, sizeof(uint64_t) * depth);
  g_records[id].offset = offset;
  g_records[id].depth = static_cast<uint32_t>(depth);
  slot.id.store(id, std::memory_order_release);
  return id;
}
}  // namespace

bool InitStackTable() {
  if (g_slots) return true;
  g_slots = static_cast<Slot*>(MapPages(sizeof(Slot) * kSlots));
  g_records = static_cast<StackRecord*>(MapPages(sizeof(StackRecord) * (kMaxStacks + 2)));
  g_arena = static_cast<uint64_t*>(MapPages(sizeof(uint64_t) * kArenaFrames));
  return g_slots && g_records && g_arena;
}

uint32_t InternStack(const uint64_t* frames, int depth) {
  if (!g_slots || depth <= 0) return 0;
  uint64_t hash = HashFrames(frames, depth);
  for (uint64_t i = hash;; ++i) {
    Slot& slot = g_slots[i & (kSlots - 1)];
    uint64_t seen = slot.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (slot.hash.compare_exchange_strong(seen, hash, std::memory_order_acq_rel)) {
        return Publish(slot, frames, depth);
      }
      // Lost the race for this slot; `seen` now holds the winner's hash.
    }
    if (seen == hash) {
      uint32_t id = WaitForId(slot);
      if (id == UINT32_MAX) {
        g_overflowed.fetch_add(1, std::memory_order_relaxed);
        return 0;
      }
      if (SameFrames(id, frames, depth)) return id;
    }
    if (i - hash >= kSlots) return 0;  // cannot happen below 3/4 load
  }
}

const uint64_t* StackFrames(uint32_t id, int* depth) {
  const StackRecord& r = g_records[id];
  *depth = static_cast<int>(r.depth);
  return g_arena + r.offset;
}

bool PrefaultStackTableChunk(uint64_t bytes) {
  static uint64_t done = 0;  // writer thread only
  constexpr uint64_t kTableBytes = sizeof(Slot) * kSlots;
  if (!g_slots || done >= kTableBytes) return false;
  uint64_t chunk = bytes < kTableBytes - done ? bytes : kTableBytes - done;
  PrefaultPages(reinterpret_cast<char*>(g_slots) + done, chunk);
  done += chunk;
  return true;
}

uint32_t StackCount() { return g_next_id.load(std::memory_order_acquire); }
uint64_t StacksOverflowed() { return g_overflowed.load(std::memory_order_relaxed); }

}  // namespace memframe::agent
