#include "memframe/analysis/live_set_index.h"

#include <algorithm>

namespace memframe::analysis {

namespace {

// The one rule every live-set replay follows (AnalyzeHeap, live_set_at.cc).
void Apply(const Event& e, LiveSet* live) {
  LiveBlock ignored;
  if (e.kind() == EventKind::kAlloc) live->Alloc(e, &ignored);
  if (e.kind() == EventKind::kFree) live->Free(e.address, &ignored);
}

}  // namespace

void LiveSetIndex::Builder::Before(const Event& event, const LiveSet& live) {
  if (position_ > 0 && since_checkpoint_ >= std::max(min_interval_, kCheckpointCostFactor * live.live_blocks())) {
    Checkpoint checkpoint;
    checkpoint.position = position_;
    checkpoint.max_frame = max_frame_;
    // By address, so that the address column delta-codes to a few bytes.
    std::vector<std::pair<uint64_t, LiveBlock>> blocks(live.blocks().begin(), live.blocks().end());
    std::sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [address, block] : blocks) {
      Event alloc;
      alloc.packed_kind = static_cast<uint8_t>(static_cast<uint8_t>(EventKind::kAlloc) |
                                               static_cast<uint8_t>(block.family) << 3);
      alloc.address = address;
      alloc.size = block.size;
      alloc.ticks = block.ticks;
      alloc.stack_id = block.stack_id;
      alloc.frame = block.frame;
      checkpoint.blocks.push_back(alloc);
    }
    checkpoints_.push_back(std::move(checkpoint));
    since_checkpoint_ = 0;
  }
  frame_end_.At(event.frame) = position_ + 1;
  max_frame_ = std::max(max_frame_, event.frame);
  ++position_;
  ++since_checkpoint_;
}

LiveSetIndex LiveSetIndex::Builder::Finish() {
  LiveSetIndex index;
  // A frame's events end where the last event of it or of any earlier frame
  // is (stragglers of an earlier frame can come after a later frame began).
  index.frame_end_ = frame_end_.TakeSorted();
  for (size_t f = 1; f < index.frame_end_.size(); ++f)
    index.frame_end_[f].second = std::max(index.frame_end_[f].second, index.frame_end_[f - 1].second);
  index.checkpoints_ = std::move(checkpoints_);
  return index;
}

LiveSetIndex LiveSetIndex::Build(const Stream& stream, uint64_t min_interval) {
  Builder builder(min_interval);
  LiveSet live;
  for (const Event& e : stream.events) {
    builder.Before(e, live);
    Apply(e, &live);
  }
  return builder.Finish();
}

const LiveSetIndex::Checkpoint* LiveSetIndex::Before(uint64_t position, uint64_t max_frame) const {
  // Both positions and max frames only grow along the checkpoints.
  auto by_position = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), position,
                                      [](uint64_t p, const Checkpoint& c) { return p < c.position; });
  auto by_frame = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), max_frame,
                                   [](uint64_t f, const Checkpoint& c) { return f < c.max_frame; });
  auto end = std::min(by_position, by_frame);
  return end == checkpoints_.begin() ? nullptr : &*(end - 1);
}

LiveSet LiveSetIndex::Restore(const Checkpoint* checkpoint) {
  LiveSet live;
  if (checkpoint)
    for (const Event& e : checkpoint->blocks) Apply(e, &live);
  return live;
}

LiveSet LiveSetIndex::AtFrame(const Stream& stream, uint64_t frame) const {
  // The last frame <= `frame`; none means no event is of such a frame.
  auto after = std::upper_bound(frame_end_.begin(), frame_end_.end(), frame,
                                [](uint64_t f, const std::pair<uint64_t, uint64_t>& e) { return f < e.first; });
  if (after == frame_end_.begin()) return LiveSet();
  uint64_t end = (after - 1)->second;
  end = std::min<uint64_t>(end, stream.events.size());
  const Checkpoint* checkpoint = Before(end, frame);
  LiveSet live = Restore(checkpoint);
  uint64_t start = checkpoint ? checkpoint->position : 0;
  auto it = stream.events.begin() + static_cast<std::ptrdiff_t>(start);
  for (uint64_t i = start; i < end; ++i, ++it)
    if (it->frame <= frame) Apply(*it, &live);
  return live;
}

LiveSet LiveSetIndex::AtPosition(const Stream& stream, uint64_t position) const {
  position = std::min<uint64_t>(position, stream.events.size());
  const Checkpoint* checkpoint = Before(position, UINT64_MAX);
  LiveSet live = Restore(checkpoint);
  uint64_t start = checkpoint ? checkpoint->position : 0;
  auto it = stream.events.begin() + static_cast<std::ptrdiff_t>(start);
  for (uint64_t i = start; i < position; ++i, ++it) Apply(*it, &live);
  return live;
}

size_t LiveSetIndex::memory_bytes() const {
  size_t bytes = frame_end_.capacity() * sizeof(frame_end_[0]) + checkpoints_.capacity() * sizeof(Checkpoint);
  for (const Checkpoint& c : checkpoints_) bytes += c.blocks.memory_bytes();
  return bytes;
}

}  // namespace memframe::analysis
