// A set of addresses in one flat array (open addressing, linear probing):
// the merge's handoff repair asks "is this block live?" once per heap event,
// so a node per entry, as std::unordered_set makes, would cost more than the
// rest of the merge. Address 0 is never a block and marks an empty slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memframe::analysis {

class AddressSet {
 public:
  // False if it was there already (0 is never inserted: returns true).
  bool Insert(uint64_t address) {
    if (address == 0) return true;
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    size_t i = Home(address);
    while (slots_[i] != 0) {
      if (slots_[i] == address) return false;
      i = (i + 1) & mask_;
    }
    slots_[i] = address;
    ++size_;
    return true;
  }

  // False if it was not there.
  bool Erase(uint64_t address) {
    if (address == 0 || size_ == 0) return false;
    size_t i = Home(address);
    while (slots_[i] != address) {
      if (slots_[i] == 0) return false;
      i = (i + 1) & mask_;
    }
    // Backward shift: pull later entries of the probe run into the hole, so
    // no tombstones build up over billions of insert/erase pairs.
    for (size_t hole = i, next = (i + 1) & mask_;; next = (next + 1) & mask_) {
      if (slots_[next] == 0) {
        slots_[hole] = 0;
        break;
      }
      size_t home = Home(slots_[next]);
      // The entry at `next` may move to `hole` unless its home lies in (hole, next].
      bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
      if (!stays) {
        slots_[hole] = slots_[next];
        hole = next;
      }
    }
    --size_;
    return true;
  }

  size_t size() const { return size_; }

 private:
  size_t Home(uint64_t address) const { return static_cast<size_t>((address * 0x9E3779B97F4A7C15ull) >> shift_); }

  void Grow() {
    std::vector<uint64_t> old;
    old.swap(slots_);
    size_t capacity = old.empty() ? 1024 : old.size() * 2;
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 64 - __builtin_ctzll(capacity);
    size_ = 0;
    for (uint64_t a : old)
      if (a) Insert(a);
  }

  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace memframe::analysis
