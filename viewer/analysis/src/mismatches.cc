#include "memframe/analysis/mismatches.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "memframe/analysis/address_map.h"
#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

namespace {

struct BlockInfo {
  uint64_t size = 0;
  uint32_t stack = 0;
  Family family = Family::kMalloc;
  bool released = false;  // freed by its allocator's release (the loader's FREE, allocator_release.h)
};

class MismatchPass : public EventPass {
 public:
  explicit MismatchPass(bool attached) : attached_(attached) {}

  void OnEvent(const Event& e) override {
    if (e.kind() == EventKind::kAlloc) {
      const BlockInfo block{e.size, e.stack_id, e.family()};
      if (auto [slot, added] = live_.TryEmplace(e.address, block); !added) *slot = block;
      freed_.Erase(e.address);
      return;
    }
    if (e.kind() != EventKind::kFree) return;
    report_.frees++;
    if (e.stack_id) report_.frees_with_stack++;
    if (BlockInfo block; live_.Erase(e.address, &block)) {
      BlockInfo gone = block;
      gone.released = e.is_released();
      if (auto [slot, added] = freed_.TryEmplace(e.address, gone); !added) *slot = gone;
      if (block.family != e.family()) Note(Mismatch::Kind::kFamily, block, e);
    } else if (const BlockInfo* f = freed_.Find(e.address)) {
      const bool after_release = f->released && e.is_custom();
      Note(after_release ? Mismatch::Kind::kFreedAfterRelease : Mismatch::Kind::kDoubleFree, *f, e);
    } else if (attached_) {
      report_.freed_before_attach++;
    } else {
      Note(Mismatch::Kind::kUnknownPointer, BlockInfo{0, 0, e.family()}, e);
    }
  }

  MismatchReport Finish() {
    for (auto& [key, m] : groups_) report_.mismatches.push_back(m);
    std::sort(report_.mismatches.begin(), report_.mismatches.end(), [](const Mismatch& a, const Mismatch& b) {
      if (a.kind != b.kind) return a.kind < b.kind;
      if (a.count != b.count) return a.count > b.count;
      return std::tie(a.alloc_stack, a.free_stack, a.alloc_family, a.free_family) <
             std::tie(b.alloc_stack, b.free_stack, b.alloc_family, b.free_family);
    });
    return std::move(report_);
  }

 private:
  using Key = std::tuple<Mismatch::Kind, Family, Family, uint32_t, uint32_t>;

  void Note(Mismatch::Kind kind, const BlockInfo& block, const Event& free) {
    Key key{kind, block.family, free.family(), block.stack, free.stack_id};
    auto [it, inserted] = groups_.try_emplace(key);
    Mismatch& m = it->second;
    if (inserted) {
      m.kind = kind;
      m.alloc_family = block.family;
      m.free_family = free.family();
      m.alloc_stack = block.stack;
      m.free_stack = free.stack_id;
      m.first_frame = free.frame;
      m.first_address = free.address;
    }
    m.count++;
    m.bytes += block.size;
  }

  // AddressMap, not a node per block: this pass sees every heap event of
  // the capture, and a node allocation per event made it the slowest step
  // of opening one in the viewer.
  AddressMap<BlockInfo> live_;
  // Blocks freed and not reused since: only these make a second free a
  // double free rather than a free of garbage.
  AddressMap<BlockInfo> freed_;
  std::map<Key, Mismatch> groups_;
  MismatchReport report_;
  bool attached_;
};

}  // namespace

MismatchReport FindMismatches(const Stream& stream, const std::vector<EventPass*>& beside) {
  MismatchPass pass(stream.process.attached);
  std::vector<EventPass*> passes = beside;
  passes.push_back(&pass);
  Replay(stream, passes);
  return pass.Finish();
}

const char* MismatchKindName(Mismatch::Kind kind) {
  switch (kind) {
    case Mismatch::Kind::kFamily: return "family";
    case Mismatch::Kind::kDoubleFree: return "double_free";
    case Mismatch::Kind::kFreedAfterRelease: return "freed_after_release";
    case Mismatch::Kind::kUnknownPointer: return "unknown_pointer";
  }
  return "?";
}

const char* AllocName(Family family) {
  switch (family) {
    case Family::kMalloc: return "malloc";
    case Family::kNew: return "new";
    case Family::kNewArray: return "new[]";
    case Family::kMmap: return "mmap";
  }
  return "?";
}

const char* FreeName(Family family) {
  switch (family) {
    case Family::kMalloc: return "free";
    case Family::kNew: return "delete";
    case Family::kNewArray: return "delete[]";
    case Family::kMmap: return "munmap";
  }
  return "?";
}

}  // namespace memframe::analysis
