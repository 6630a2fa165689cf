#include "memframe/analysis/live_set.h"

namespace memframe::analysis {

bool LiveSet::Alloc(const Event& alloc, LiveBlock* replaced) {
  LiveBlock block{alloc.size, alloc.ticks, alloc.stack_id, alloc.frame, alloc.family()};
  auto [at, inserted] = blocks_.TryEmplace(alloc.address, block);
  live_bytes_ += alloc.size;
  if (inserted) return false;
  *replaced = *at;
  live_bytes_ -= replaced->size;
  *at = block;
  return true;
}

bool LiveSet::Free(uint64_t address, LiveBlock* freed) {
  if (!blocks_.Erase(address, freed)) return false;
  live_bytes_ -= freed->size;
  return true;
}

}  // namespace memframe::analysis
