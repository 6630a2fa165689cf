// The blocks that are allocated and not yet freed, replayed event by event.
#pragma once

#include <cstdint>

#include "memframe/analysis/address_map.h"
#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

struct LiveBlock {
  uint64_t size = 0;
  uint64_t ticks = 0;  // when it was allocated
  uint32_t stack_id = 0;
  uint64_t frame = 0;
  // Kept so that a later pass can report new/free and new[]/delete mismatches.
  Family family = Family::kMalloc;
};

class LiveSet {
 public:
  // Adds the block of an ALLOC event. A block already live at that address
  // lost its free (the agent never misses one, so this is a damaged or
  // dropped-events capture): it is removed, returned in *replaced, and the
  // call returns true.
  bool Alloc(const Event& alloc, LiveBlock* replaced);
  // Removes the block at `address`; false when no block is live there.
  bool Free(uint64_t address, LiveBlock* freed);

  uint64_t live_bytes() const { return live_bytes_; }
  size_t live_blocks() const { return blocks_.size(); }
  const AddressMap<LiveBlock>& blocks() const { return blocks_; }

 private:
  AddressMap<LiveBlock> blocks_;
  uint64_t live_bytes_ = 0;
};

}  // namespace memframe::analysis
