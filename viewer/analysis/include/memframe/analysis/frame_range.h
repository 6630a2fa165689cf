// Frame numbers and the per-frame tables built from them.
//
// A frame number is whatever the capture's events carry: 64-bit, counted
// from 0 by the agent, but a reader must not assume the numbers start at 0
// or follow each other (a capture may start at frame 10^12, or jump by 10^9
// after a damaged stretch). So nothing here is indexed by a frame number:
// per-frame tables hold one row per frame that occurs, sorted by number.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace memframe::analysis {

// Inclusive range of frame numbers. Not every number in it need be a frame
// of the capture: FrameTable::CountIn says how many are.
struct FrameRange {
  uint64_t from = 0;
  uint64_t to = 0;
  // Numbers in the range (saturates at UINT64_MAX for 0..UINT64_MAX).
  uint64_t size() const { return to < from ? 0 : to - from == UINT64_MAX ? UINT64_MAX : to - from + 1; }
  bool Contains(uint64_t frame) const { return frame >= from && frame <= to; }
  bool operator==(const FrameRange&) const = default;
};

// Builds one Row per frame number seen, in any order, in memory
// proportional to the frames seen. Events come almost sorted by frame (in
// tick order, with stragglers of the previous frame from other threads), so
// the row of the previous lookup is checked before the hash map.
template <typename Row>
class FrameRows {
 public:
  Row& At(uint64_t frame) {
    if (last_ < rows_.size() && rows_[last_].first == frame) return rows_[last_].second;
    auto [it, inserted] = slot_.try_emplace(frame, rows_.size());
    if (inserted) rows_.emplace_back(frame, Row{});
    last_ = it->second;
    return rows_[last_].second;
  }
  bool empty() const { return rows_.empty(); }
  size_t size() const { return rows_.size(); }

  // Every row, sorted by frame number; the builder is empty afterwards.
  std::vector<std::pair<uint64_t, Row>> TakeSorted() {
    std::vector<std::pair<uint64_t, Row>> rows = std::move(rows_);
    auto by_frame = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(rows.begin(), rows.end(), by_frame)) std::sort(rows.begin(), rows.end(), by_frame);
    rows_.clear();
    slot_.clear();
    last_ = SIZE_MAX;
    return rows;
  }

 private:
  std::vector<std::pair<uint64_t, Row>> rows_;  // in order of first sight
  std::unordered_map<uint64_t, size_t> slot_;   // frame -> index into rows_
  size_t last_ = SIZE_MAX;
};

}  // namespace memframe::analysis
