#include "memframe/analysis/allocators.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "memframe/analysis/event_pass.h"
#include "memframe/analysis/frame_stats.h"

namespace memframe::analysis {

const AllocatorInfo* AllocatorHolding(const std::vector<AllocatorInfo>& allocators, uint64_t address) {
  for (auto it = allocators.rbegin(); it != allocators.rend(); ++it)
    if (it->Holds(address)) return &*it;
  return nullptr;
}

const char* AllocatorKindName(AllocatorKind kind) {
  switch (kind) {
    case AllocatorKind::kFrameArena: return "frame arena";
    case AllocatorKind::kLevelStack: return "level stack";
    case AllocatorKind::kPool: return "pool";
    case AllocatorKind::kRing: return "ring";
    case AllocatorKind::kHeap: return "heap";
    case AllocatorKind::kOther: break;
  }
  return "other";
}

std::string AllocatorTitle(const AllocatorInfo& info, const std::string& created_in) {
  if (info.kind != AllocatorKind::kHeap || created_in.empty()) return info.name;
  return info.name + " created at " + created_in;
}

namespace {

// A frame table of this many rows or more is kept sparse: frame numbers are
// any 64-bit values, and a gap of billions is no reason to fill memory.
constexpr uint64_t kMaxDenseFrames = 1u << 24;

struct Block {
  uint64_t size = 0;
  uint32_t stack = 0;
  uint64_t frame = 0;
};

struct Released {
  Block block;
  uint64_t release_frame = 0;
};

struct State {
  bool used = false;
  uint64_t backing_address = 0;
  std::unordered_map<uint64_t, Block> live;
  std::unordered_map<uint64_t, Released> released;  // freed by a release, not handed out again since
  uint64_t in_use = 0;
  std::map<uint64_t, AllocatorFrame> frames;  // frames with events

  AllocatorFrame& Row(uint64_t frame) {
    auto [it, added] = frames.try_emplace(frame);
    if (added) {
      it->second.frame = frame;
      it->second.high_water = it->second.in_use_end = in_use;
    }
    return it->second;
  }
};

class AllocatorPass : public EventPass {
 public:
  explicit AllocatorPass(const Stream& stream) : allocators_(stream.allocators), usage_(allocators_.size()) {
    for (size_t i = 0; i < allocators_.size(); ++i) {
      usage_[i].info = allocators_[i];
      index_[allocators_[i].id] = i;
    }
    state_.resize(allocators_.size());
    for (size_t i = 0; i < allocators_.size(); ++i)
      if (allocators_[i].ticks) uncreated_.push_back(i);
    std::stable_sort(uncreated_.begin(), uncreated_.end(),
                     [&](size_t a, size_t b) { return allocators_[a].ticks < allocators_[b].ticks; });
  }

  void OnEvent(const Event& e) override {
    // Creations up to this event's time happened in its frame (or before
    // it, in a frame without events of ours).
    while (next_created_ < uncreated_.size() && allocators_[uncreated_[next_created_]].ticks <= e.ticks)
      usage_[uncreated_[next_created_++]].created_frame = e.frame;
    last_frame_ = e.frame;
    switch (e.kind()) {
      case EventKind::kAlloc:
        if (e.is_custom())
          CustomAlloc(e);
        else
          HeapAlloc(e);
        break;
      case EventKind::kFree:
        if (e.is_custom())
          CustomFree(e);
        else
          HeapFree(e);
        break;
      case EventKind::kAllocatorRelease:
        if (auto it = index_.find(static_cast<uint32_t>(e.size)); it != index_.end()) {
          State& s = state_[it->second];
          s.used = true;
          s.Row(e.frame).releases++;
          AllocatorUsage& u = usage_[it->second];
          u.releases++;
          // A private heap's one release is its destruction (FORMAT.md).
          if (u.info.kind == AllocatorKind::kHeap && !u.destroyed) {
            u.destroyed = true;
            u.destroyed_frame = e.frame;
          }
        }
        break;
      default:
        break;
    }
  }

  std::vector<AllocatorUsage> Finish() {
    for (; next_created_ < uncreated_.size(); ++next_created_)
      usage_[uncreated_[next_created_]].created_frame = last_frame_;
    for (size_t i = 0; i < usage_.size(); ++i) Summarize(state_[i], &usage_[i]);
    return std::move(usage_);
  }

 private:
  size_t IndexOf(uint64_t address) const {
    const AllocatorInfo* a = AllocatorHolding(allocators_, address);
    return a ? index_.at(a->id) : SIZE_MAX;
  }

  // A private heap's block (Event::heap), or a block that may back a
  // declared allocator: the latest heap block holding the base before the
  // allocator's first use.
  void HeapAlloc(const Event& e) {
    if (e.heap) {
      auto it = index_.find(e.heap);
      if (it != index_.end() && allocators_[it->second].kind == AllocatorKind::kHeap) {
        heap_block_owner_[e.address] = it->second;
        TakeBlock(it->second, e);
      }
    }
    for (size_t i = 0; i < allocators_.size(); ++i) {
      const uint64_t base = allocators_[i].base;
      if (state_[i].used || allocators_[i].kind == AllocatorKind::kHeap || base < e.address ||
          base - e.address >= e.size)
        continue;
      state_[i].backing_address = e.address;
      usage_[i].backing_block = e.size;
    }
  }

  void HeapFree(const Event& e) {
    if (auto owner = heap_block_owner_.find(e.address); owner != heap_block_owner_.end()) {
      GiveBack(owner->second, e);
      heap_block_owner_.erase(owner);
    }
    for (size_t i = 0; i < allocators_.size(); ++i) {
      if (state_[i].used || state_[i].backing_address != e.address || !usage_[i].backing_block) continue;
      usage_[i].backing_block = 0;
    }
  }

  void CustomAlloc(const Event& e) {
    const size_t i = IndexOf(e.address);
    if (i != SIZE_MAX) TakeBlock(i, e);
  }

  // A block handed out by allocator i.
  void TakeBlock(size_t i, const Event& e) {
    State& s = state_[i];
    s.used = true;
    s.released.erase(e.address);
    auto [it, added] = s.live.try_emplace(e.address, Block{e.size, e.stack_id, e.frame});
    if (!added) {  // its free was lost: the new block takes its place
      s.in_use -= it->second.size;
      it->second = Block{e.size, e.stack_id, e.frame};
    }
    s.in_use += e.size;
    AllocatorFrame& row = s.Row(e.frame);
    row.blocks++;
    row.bytes += e.size;
    row.high_water = std::max(row.high_water, s.in_use);
    row.in_use_end = s.in_use;
    usage_[i].blocks++;
    usage_[i].bytes += e.size;
  }

  // A block given back to allocator i; false when it held no such block.
  bool GiveBack(size_t i, const Event& e) {
    State& s = state_[i];
    auto it = s.live.find(e.address);
    if (it == s.live.end()) return false;
    s.in_use -= it->second.size;
    if (e.is_released()) s.released[e.address] = {it->second, e.frame};
    s.live.erase(it);
    s.Row(e.frame).in_use_end = s.in_use;
    return true;
  }

  void CustomFree(const Event& e) {
    const size_t i = IndexOf(e.address);
    if (i == SIZE_MAX || GiveBack(i, e)) return;
    State& s = state_[i];
    auto gone = s.released.find(e.address);
    if (gone == s.released.end()) return;
    const Released& r = gone->second;
    usage_[i].outlived.push_back(
        {e.address, r.block.size, r.block.stack, r.block.frame, r.release_frame, e.stack_id, e.frame});
    s.released.erase(gone);
  }

  // The frames report's median (the lower middle value).
  static uint64_t Median(const std::vector<uint64_t>& values) {
    return values.empty() ? 0 : ComputeSpikeThreshold(values).median;
  }

  static void Summarize(const State& s, AllocatorUsage* u) {
    if (!s.frames.empty()) {
      const uint64_t first = s.frames.begin()->first, last = s.frames.rbegin()->first;
      const bool dense = last - first < kMaxDenseFrames;
      uint64_t carried = 0;
      for (uint64_t f = first;; ++f) {
        auto it = s.frames.find(f);
        if (it != s.frames.end()) {
          u->frames.push_back(it->second);
        } else if (dense) {
          AllocatorFrame quiet;
          quiet.frame = f;
          quiet.high_water = quiet.in_use_end = carried;
          u->frames.push_back(quiet);
        }
        carried = u->frames.back().in_use_end;
        if (f == last) break;
        if (!dense) f = std::next(s.frames.find(f))->first - 1;
      }
    }
    std::vector<uint64_t> blocks, bytes, releases;
    for (const AllocatorFrame& f : u->frames) {
      u->high_water = std::max(u->high_water, f.high_water);
      blocks.push_back(f.blocks);
      bytes.push_back(f.bytes);
      releases.push_back(f.releases);
    }
    u->median_blocks_per_frame = Median(blocks);
    u->median_bytes_per_frame = Median(bytes);
    u->median_releases_per_frame = Median(releases);
    u->live_blocks_end = s.live.size();
    u->live_bytes_end = s.in_use;
  }

  const std::vector<AllocatorInfo>& allocators_;
  std::vector<AllocatorUsage> usage_;
  std::vector<State> state_;
  std::unordered_map<uint32_t, size_t> index_;
  std::unordered_map<uint64_t, size_t> heap_block_owner_;  // a private heap's live block -> its allocator
  std::vector<size_t> uncreated_;  // allocators with a creation time, by it
  size_t next_created_ = 0;        // uncreated_[next_created_...] not yet placed in a frame
  uint64_t last_frame_ = 0;
};

}  // namespace

std::vector<AllocatorUsage> AnalyzeAllocators(const Stream& stream) {
  if (stream.allocators.empty()) return {};
  AllocatorPass pass(stream);
  Replay(stream, {&pass});
  return pass.Finish();
}

}  // namespace memframe::analysis
