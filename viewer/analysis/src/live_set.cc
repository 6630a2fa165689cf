#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

bool LiveSet::Alloc(const Event& alloc, LiveBlock* replaced) {
  LiveBlock block{alloc.size, alloc.ticks, alloc.stack_id, alloc.frame, alloc.family()};
  auto [it, inserted] = blocks_.try_emplace(alloc.address, block);
  live_bytes_ += alloc.size;
  if (inserted) return false;
  *replaced = it->second;
  live_bytes_ -= replaced->size;
  it->second = block;
  return true;
}

bool LiveSet::Free(uint64_t address, LiveBlock* freed) {
  auto it = blocks_.find(address);
  if (it == blocks_.end()) return false;
  *freed = it->second;
  live_bytes_ -= freed->size;
  blocks_.erase(it);
  return true;
}

}  // namespace memframe::analysis
