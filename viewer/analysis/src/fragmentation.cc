#include "memframe/analysis/fragmentation.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "memframe/analysis/event_pass.h"

namespace memframe::analysis {

namespace {

// Accumulates the holes of one region, block by block in address order.
class RegionBuilder {
 public:
  RegionBuilder(uint64_t start, bool mapped) {
    r_.start = r_.end = cursor_ = start;
    r_.mapped = mapped;
  }
  void AddBlock(uint64_t address, const LiveBlock& block) {
    Gap(address);
    r_.blocks++;
    r_.live_bytes += block.size;
    // Overlapping blocks only come from damaged captures; never move back.
    cursor_ = std::max(cursor_, address + block.size);
    r_.end = std::max(r_.end, cursor_);
  }
  uint64_t cursor() const { return cursor_; }
  RegionLayout Finish(uint64_t end) {
    Gap(end);
    r_.end = std::max(r_.end, end);
    r_.fragmentation = Fragmentation(r_.largest_free_gap, r_.free_bytes);
    return r_;
  }
  RegionLayout& region() { return r_; }

 private:
  void Gap(uint64_t next) {
    if (next <= cursor_) return;
    uint64_t gap = next - cursor_;
    if (gap <= kHoleSlack) return;
    r_.holes++;
    r_.free_bytes += gap;
    r_.largest_free_gap = std::max(r_.largest_free_gap, gap);
  }
  RegionLayout r_;
  uint64_t cursor_ = 0;
};

// Keeps the address space up to date event by event.
class AddressSpacePass : public EventPass {
 public:
  // Called before the first event of a later frame is applied with the
  // frames that just ended: `first` (the frame the events so far were in)
  // up to `last`, the frame before the new one. Numbers in between had no
  // events, so the space is the end of each of them (one call, however wide
  // the gap). Called once at the end for the last frame. Returns false to
  // stop the pass.
  using OnFramesDone = std::function<bool(uint64_t first, uint64_t last, const AddressSpace&)>;
  explicit AddressSpacePass(OnFramesDone on_done) : on_done_(std::move(on_done)) {}

  void OnEvent(const Event& e) override {
    if (stopped_) return;
    if (!started_) {
      started_ = true;
      space_.first_frame = e.frame;
    }
    if (e.frame > current_frame_) {
      stopped_ = !on_done_(current_frame_, e.frame - 1, space_);
      current_frame_ = e.frame;
      if (stopped_) return;
    }
    space_.frame = current_frame_;
    switch (e.kind()) {
      case EventKind::kAlloc: space_.blocks[e.address] = {e.size, e.ticks, e.stack_id, e.frame, e.family()}; break;
      case EventKind::kFree: space_.blocks.erase(e.address); break;
      case EventKind::kMap: space_.mapped.Map(e); break;
      case EventKind::kUnmap: space_.mapped.Unmap(e.address, e.size); break;
      default: break;
    }
  }

  void Finish() {
    if (!stopped_) on_done_(current_frame_, current_frame_, space_);
  }
  AddressSpace Take() { return std::move(space_); }

 private:
  OnFramesDone on_done_;
  AddressSpace space_;
  uint64_t current_frame_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace

double Fragmentation(uint64_t largest_free_gap, uint64_t free_bytes) {
  if (free_bytes == 0) return 0;
  return 1.0 - static_cast<double>(largest_free_gap) / static_cast<double>(free_bytes);
}

std::vector<RegionLayout> LayoutRegions(const AddressSpace& space) {
  std::vector<RegionLayout> heap, mapped;
  std::map<uint64_t, RegionBuilder> in_mapping;  // by mapping start
  std::optional<RegionBuilder> cluster;
  for (const auto& [address, block] : space.blocks) {
    if (const MappedRegion* m = space.mapped.Find(address)) {
      in_mapping.try_emplace(m->start, m->start, true).first->second.AddBlock(address, block);
      continue;
    }
    if (cluster && address > cluster->cursor() + kRegionGap) {
      heap.push_back(cluster->Finish(cluster->cursor()));
      cluster.reset();
    }
    if (!cluster) cluster.emplace(address, false);
    cluster->AddBlock(address, block);
  }
  if (cluster) heap.push_back(cluster->Finish(cluster->cursor()));
  for (const auto& [start, region] : space.mapped.regions()) {
    auto it = in_mapping.find(start);
    RegionBuilder builder = it != in_mapping.end() ? it->second : RegionBuilder(start, true);
    builder.region().stack_id = region.stack_id;
    mapped.push_back(builder.Finish(region.end));
  }
  heap.insert(heap.end(), mapped.begin(), mapped.end());
  return heap;
}

std::vector<uint64_t> SampleFrames(const FrameTable& table, uint64_t last_frame, uint32_t max_samples) {
  std::vector<uint64_t> frames;
  const size_t count = table.RowsIn({0, last_frame}).second;  // rows up to last_frame
  if (max_samples == 0 || count == 0) return frames;
  if (max_samples == 1) return {table.frames[count - 1].frame};
  if (count <= max_samples) {
    for (size_t i = 0; i < count; ++i) frames.push_back(table.frames[i].frame);
    return frames;
  }
  for (uint64_t i = 0; i < max_samples; ++i) frames.push_back(table.frames[(count - 1) * i / (max_samples - 1)].frame);
  return frames;
}

std::vector<FragmentationSample> FragmentationTimeline(const Stream& stream, const std::vector<uint64_t>& frames) {
  std::vector<FragmentationSample> samples;
  size_t next = 0;
  AddressSpacePass pass([&](uint64_t first, uint64_t last, const AddressSpace& space) {
    while (next < frames.size() && frames[next] < first) ++next;  // frames the capture never reached
    if (next < frames.size() && frames[next] <= last) {
      std::vector<RegionLayout> regions = LayoutRegions(space);
      for (; next < frames.size() && frames[next] <= last; ++next) samples.push_back({frames[next], regions});
    }
    return next < frames.size();
  });
  Replay(stream, {&pass});
  pass.Finish();
  return samples;
}

AddressSpace AddressSpaceAtFrame(const Stream& stream, uint64_t frame) {
  AddressSpacePass pass([&](uint64_t, uint64_t last, const AddressSpace&) { return last < frame; });
  Replay(stream, {&pass});
  AddressSpace space = pass.Take();
  space.frame = frame;
  return space;
}

}  // namespace memframe::analysis
