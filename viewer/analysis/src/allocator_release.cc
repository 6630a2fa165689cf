#include "allocator_release.h"

#include <map>
#include <set>

#include "memframe/analysis/allocators.h"
#include "memframe/format.h"

namespace memframe::analysis {

namespace {
constexpr auto kReleasedFree = static_cast<uint8_t>(wire::PackKind(
    static_cast<uint32_t>(EventKind::kFree), static_cast<uint32_t>(Family::kMalloc),
    wire::kFlagCustom | wire::kFlagReleased));
}  // namespace

void ExpandAllocatorReleases(Stream* stream) {
  if (stream->allocators.empty()) return;
  bool any = false;
  for (const Event& e : stream->events) any = any || e.kind() == EventKind::kAllocatorRelease;
  if (!any) return;

  // The live custom blocks of each allocator, by address (a release frees
  // those at its mark and above).
  std::map<uint32_t, std::set<uint64_t>> live;
  EventStore in = std::move(stream->events);
  EventStore out;
  std::vector<Event> chunk;
  for (size_t c = 0; c < in.chunk_count(); ++c) {
    in.DecodeChunk(c, &chunk);
    in.ReleaseChunksBefore(c + 1);
    for (const Event& e : chunk) {
      out.push_back(e);
      if (e.is_custom() && (e.kind() == EventKind::kAlloc || e.kind() == EventKind::kFree)) {
        const AllocatorInfo* a = AllocatorHolding(stream->allocators, e.address);
        if (!a) continue;
        if (e.kind() == EventKind::kAlloc)
          live[a->id].insert(e.address);
        else
          live[a->id].erase(e.address);
      } else if (e.kind() == EventKind::kAllocatorRelease) {
        auto it = live.find(static_cast<uint32_t>(e.size));
        if (it == live.end()) continue;
        std::set<uint64_t>& blocks = it->second;
        for (auto b = blocks.lower_bound(e.address); b != blocks.end(); b = blocks.erase(b)) {
          Event free = e;
          free.address = *b;
          free.size = 0;
          free.stack_id = 0;
          free.duration_ticks = 0;
          free.packed_kind = kReleasedFree;
          out.push_back(free);
        }
      }
    }
  }
  stream->events = std::move(out);
}

}  // namespace memframe::analysis
