#include "allocator_release.h"

#include "memframe/analysis/allocators.h"
#include "memframe/format.h"

namespace memframe::analysis {

namespace {
constexpr auto kReleasedFree = static_cast<uint8_t>(wire::PackKind(
    static_cast<uint32_t>(EventKind::kFree), static_cast<uint32_t>(Family::kMalloc),
    wire::kFlagCustom | wire::kFlagReleased));
}  // namespace

void ReleaseExpander::Push(const Event& e) {
  out_->Push(e);
  const bool custom = e.is_custom() && (e.kind() == EventKind::kAlloc || e.kind() == EventKind::kFree);
  if (!custom && e.kind() != EventKind::kAllocatorRelease) return;
  used_table_ = true;
  if (allocators_->empty()) return;
  if (custom) {
    const AllocatorInfo* a = AllocatorHolding(*allocators_, e.address);
    if (!a) return;
    if (e.kind() == EventKind::kAlloc)
      live_[a->id].insert(e.address);
    else
      live_[a->id].erase(e.address);
  } else {
    auto it = live_.find(static_cast<uint32_t>(e.size));
    if (it == live_.end()) return;
    std::set<uint64_t>& blocks = it->second;
    for (auto b = blocks.lower_bound(e.address); b != blocks.end(); b = blocks.erase(b)) {
      Event free = e;
      free.address = *b;
      free.size = 0;
      free.stack_id = 0;
      free.duration_ticks = 0;
      free.packed_kind = kReleasedFree;
      out_->Push(free);
    }
  }
}

void ExpandAllocatorReleases(Stream* stream) {
  if (stream->allocators.empty()) return;
  bool any = false;
  for (const Event& e : stream->events) any = any || e.kind() == EventKind::kAllocatorRelease;
  if (!any) return;

  EventStore in = std::move(stream->events);
  EventStore out;
  StoreSink sink(&out);
  ReleaseExpander expander(&stream->allocators, &sink);
  std::vector<Event> chunk;
  for (size_t c = 0; c < in.chunk_count(); ++c) {
    in.DecodeChunk(c, &chunk);
    in.ReleaseChunksBefore(c + 1);
    for (const Event& e : chunk) expander.Push(e);
  }
  stream->events = std::move(out);
}

}  // namespace memframe::analysis
