// Addresses mapped to values in flat arrays (open addressing, linear
// probing): the live set and the merge's handoff repair look up an address
// once per heap event, so a node per entry, as std::unordered_map makes,
// would cost an allocation and a cache miss more than the rest of the
// lookup. Keys and values sit in two arrays so that a probe run reads keys
// only, eight to a cache line. Erasing shifts the rest of the probe run
// back, so no tombstones build up over billions of insert/erase pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace memframe::analysis {

template <class Value>
class AddressMap {
  // An empty Value (a set) keeps no value array.
  static constexpr bool kValues = !std::is_empty_v<Value>;

 public:
  // Null when `address` is not there.
  Value* Find(uint64_t address) {
    if (address == 0) return has_zero_ ? &zero_ : nullptr;
    if (size_ == 0) return nullptr;
    for (size_t i = Home(address);; i = (i + 1) & mask_) {
      if (keys_[i] == address) return ValueAt(i);
      if (keys_[i] == 0) return nullptr;
    }
  }

  // Adds {address, value} unless `address` is there; either way, the value
  // at `address` and whether it was added.
  std::pair<Value*, bool> TryEmplace(uint64_t address, const Value& value) {
    if (address == 0) {
      if (has_zero_) return {&zero_, false};
      has_zero_ = true;
      zero_ = value;
      return {&zero_, true};
    }
    if ((size_ + 1) * 2 > keys_.size()) Grow();
    size_t i = Home(address);
    for (; keys_[i] != 0; i = (i + 1) & mask_)
      if (keys_[i] == address) return {ValueAt(i), false};
    keys_[i] = address;
    if constexpr (kValues) values_[i] = value;
    ++size_;
    return {ValueAt(i), true};
  }

  // Removes `address`, its value into *removed (may be null); false when it
  // was not there.
  bool Erase(uint64_t address, Value* removed = nullptr) {
    if (address == 0) {
      if (!has_zero_) return false;
      if (removed) *removed = zero_;
      has_zero_ = false;
      return true;
    }
    if (size_ == 0) return false;
    size_t i = Home(address);
    for (; keys_[i] != address; i = (i + 1) & mask_)
      if (keys_[i] == 0) return false;
    if (removed) *removed = *ValueAt(i);
    // Pull later entries of the probe run into the hole.
    for (size_t hole = i, next = (i + 1) & mask_;; next = (next + 1) & mask_) {
      if (keys_[next] == 0) {
        keys_[hole] = 0;
        break;
      }
      const size_t home = Home(keys_[next]);
      // The entry at `next` may move to `hole` unless its home lies in (hole, next].
      const bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
      if (!stays) {
        keys_[hole] = keys_[next];
        if constexpr (kValues) values_[hole] = values_[next];
        hole = next;
      }
    }
    --size_;
    return true;
  }

  size_t size() const { return size_ + (has_zero_ ? 1 : 0); }

  // Every entry as std::pair<uint64_t, const Value&>, in no useful order.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::pair<uint64_t, Value>;
    using reference = std::pair<uint64_t, const Value&>;
    using difference_type = std::ptrdiff_t;
    using pointer = void;

    const_iterator() = default;
    reference operator*() const {
      if (slot_ == map_->keys_.size()) return {0, map_->zero_};
      return {map_->keys_[slot_], *map_->ValueAt(slot_)};
    }
    const_iterator& operator++() {
      ++slot_;
      Skip();
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const const_iterator& other) const { return slot_ == other.slot_; }
    bool operator!=(const const_iterator& other) const { return slot_ != other.slot_; }

   private:
    friend class AddressMap;
    // Slots [0, capacity) are the arrays', slot `capacity` is address 0's.
    const_iterator(const AddressMap* map, size_t slot) : map_(map), slot_(slot) { Skip(); }
    void Skip() {
      const size_t capacity = map_->keys_.size();
      while (slot_ < capacity && map_->keys_[slot_] == 0) ++slot_;
      if (slot_ == capacity && !map_->has_zero_) ++slot_;
    }
    const AddressMap* map_ = nullptr;
    size_t slot_ = 0;
  };

  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, keys_.size() + 1); }

 private:
  static constexpr size_t kFirstCapacity = 16;

  size_t Home(uint64_t address) const { return static_cast<size_t>((address * 0x9E3779B97F4A7C15ull) >> shift_); }

  Value* ValueAt(size_t slot) {
    if constexpr (kValues) return &values_[slot];
    return &zero_;
  }
  const Value* ValueAt(size_t slot) const { return const_cast<AddressMap*>(this)->ValueAt(slot); }

  void Grow() {
    std::vector<uint64_t> old_keys;
    std::vector<Value> old_values;
    old_keys.swap(keys_);
    old_values.swap(values_);
    const size_t capacity = old_keys.empty() ? kFirstCapacity : old_keys.size() * 2;
    keys_.assign(capacity, 0);
    if constexpr (kValues) values_.resize(capacity);
    mask_ = capacity - 1;
    shift_ = 64 - __builtin_ctzll(capacity);
    for (size_t s = 0; s < old_keys.size(); ++s) {
      if (old_keys[s] == 0) continue;
      size_t i = Home(old_keys[s]);
      while (keys_[i] != 0) i = (i + 1) & mask_;
      keys_[i] = old_keys[s];
      if constexpr (kValues) values_[i] = old_values[s];
    }
  }

  std::vector<uint64_t> keys_;  // 0: an empty slot
  std::vector<Value> values_;   // beside keys_, when kValues
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;  // entries in the arrays
  // Address 0 marks an empty slot, so its entry, should a capture have one,
  // is kept aside.
  bool has_zero_ = false;
  Value zero_{};
};

// A set of addresses (AddressMap without values).
class AddressSet {
 public:
  // False if it was there already.
  bool Insert(uint64_t address) { return map_.TryEmplace(address, {}).second; }
  // False if it was not there.
  bool Erase(uint64_t address) { return map_.Erase(address); }
  size_t size() const { return map_.size(); }

 private:
  struct Member {};
  AddressMap<Member> map_;
};

}  // namespace memframe::analysis
