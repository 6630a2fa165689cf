#include "memframe/analysis/live_series.h"

#include <algorithm>
#include <unordered_map>

#include "memframe/analysis/live_set.h"
#include "memframe/analysis/mapped_regions.h"
#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

// What a frame changed, per group, before the levels are added up.
struct Change {
  LiveFigures counts;  // live_bytes and mapped_bytes unused
  uint64_t mapped = 0, unmapped = 0;
};

class SeriesBuilder {
 public:
  SeriesBuilder(const FrameTable& table, size_t groups, const StackGroupFn& group_of)
      : table_(table), groups_(groups), group_of_(group_of), changes_(table.frames.size() * groups) {}

  void OnEvent(const Event& e) {
    switch (e.kind()) {
      case EventKind::kAlloc: {
        LiveBlock replaced;
        // The block an ALLOC replaced lost its free: FrameStatsBuilder
        // counts it freed in this frame, and so does the series.
        if (live_.Alloc(e, &replaced)) Freed(e.frame, replaced);
        if (Change* c = At(e.frame, e.stack_id)) {
          c->counts.allocations++;
          c->counts.bytes_allocated += e.size;
        }
        break;
      }
      case EventKind::kFree: {
        LiveBlock freed;
        if (live_.Free(e.address, &freed)) Freed(e.frame, freed);
        break;
      }
      case EventKind::kMap:
        mapped_.Map(e, [&](const MappedRegion& r, uint64_t bytes) { Unmapped(e.frame, r, bytes); });
        if (Change* c = At(e.frame, e.stack_id)) c->mapped += e.size;
        break;
      case EventKind::kUnmap:
        mapped_.Unmap(e.address, e.size, [&](const MappedRegion& r, uint64_t bytes) { Unmapped(e.frame, r, bytes); });
        break;
      case EventKind::kFrameEnd:
      case EventKind::kMarker:
      case EventKind::kAllocatorRelease:
      case EventKind::kNone:
        break;
    }
  }

  LiveSeries Finish() {
    LiveSeries series;
    series.groups = groups_;
    series.frames.reserve(table_.frames.size());
    for (const FrameStats& f : table_.frames) series.frames.push_back(f.frame);
    series.cells.resize(changes_.size());
    std::vector<uint64_t> live(groups_), mapped(groups_);
    for (size_t row = 0; row < series.frames.size(); ++row) {
      for (size_t g = 0; g < groups_; ++g) {
        const Change& c = changes_[row * groups_ + g];
        LiveFigures& out = series.cells[row * groups_ + g];
        out = c.counts;
        live[g] += c.counts.bytes_allocated - c.counts.bytes_freed;
        mapped[g] += c.mapped - c.unmapped;
        out.live_bytes = live[g];
        out.mapped_bytes = mapped[g];
      }
    }
    return series;
  }

 private:
  size_t Group(uint32_t stack_id) {
    auto [it, inserted] = group_of_stack_.try_emplace(stack_id, 0);
    if (inserted) it->second = std::min(group_of_(stack_id), groups_ - 1);
    return it->second;
  }

  // The change cell of the row that shows `frame` and the group of
  // `stack_id`; null after the last row.
  Change* At(uint64_t frame, uint32_t stack_id) {
    const auto& rows = table_.frames;
    if (last_row_ >= rows.size() || rows[last_row_].frame != frame) last_row_ = table_.LowerBound(frame);
    if (last_row_ >= rows.size()) return nullptr;
    return &changes_[last_row_ * groups_ + Group(stack_id)];
  }

  void Freed(uint64_t frame, const LiveBlock& block) {
    if (Change* c = At(frame, block.stack_id)) {
      c->counts.frees++;
      c->counts.bytes_freed += block.size;
    }
  }

  void Unmapped(uint64_t frame, const MappedRegion& region, uint64_t bytes) {
    if (Change* c = At(frame, region.stack_id)) c->unmapped += bytes;
  }

  const FrameTable& table_;
  const size_t groups_;
  const StackGroupFn& group_of_;
  std::vector<Change> changes_;  // row * groups + group
  std::unordered_map<uint32_t, size_t> group_of_stack_;
  size_t last_row_ = SIZE_MAX;
  LiveSet live_;
  MappedRegions mapped_;
};

}  // namespace

LiveFigures& LiveFigures::operator+=(const LiveFigures& other) {
  live_bytes += other.live_bytes;
  mapped_bytes += other.mapped_bytes;
  allocations += other.allocations;
  frees += other.frees;
  bytes_allocated += other.bytes_allocated;
  bytes_freed += other.bytes_freed;
  return *this;
}

LiveFigures LiveSeries::Sum(size_t row, const std::function<bool(size_t group)>& keep) const {
  LiveFigures sum;
  for (size_t g = 0; g < groups; ++g) {
    if (keep(g)) sum += At(row, g);
  }
  return sum;
}

bool LiveSeries::Present(size_t group) const {
  for (size_t row = 0; row < rows(); ++row) {
    if (At(row, group) != LiveFigures{}) return true;
  }
  return false;
}

LiveSeries ComputeLiveSeries(const Stream& stream, const FrameTable& table, size_t groups, const StackGroupFn& group_of) {
  if (groups == 0) return {};
  SeriesBuilder builder(table, groups, group_of);
  for (const Event& e : stream.events) builder.OnEvent(e);
  return builder.Finish();
}

LiveSeries ComputeClassSeries(const Stream& stream, const FrameTable& table,
                              const std::function<ModuleClass(uint32_t stack_id)>& class_of) {
  return ComputeLiveSeries(stream, table, kModuleClassCount,
                           [&](uint32_t stack_id) { return static_cast<size_t>(class_of(stack_id)); });
}

LiveSeries ComputeClassSeries(const Stream& stream, const FrameTable& table, Symbolizer& symbolizer) {
  return ComputeClassSeries(stream, table, [&](uint32_t stack_id) {
    auto it = stream.stacks.find(stack_id);
    if (it == stream.stacks.end()) return FindSiteOrigin({}).module_class;
    return FindSiteOrigin(symbolizer.SymbolizeStack(it->second)).module_class;
  });
}

std::vector<ModuleClass> PresentClasses(const LiveSeries& series) {
  std::vector<ModuleClass> present;
  for (ModuleClass c : AllModuleClasses())
    if (series.Present(static_cast<size_t>(c))) present.push_back(c);
  return present;
}

}  // namespace memframe::analysis
