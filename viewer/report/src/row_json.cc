#include "memframe/report/row_json.h"

#include "memframe/analysis/ratios.h"
#include "memframe/hex.h"

namespace memframe::analysis {

namespace {

json FrameJson(const SourceFrame& f) {
  return {{"address", Hex(f.address)},
          {"function", f.function},
          {"file", f.file},
          {"line", f.line},
          {"module", f.module},
          {"module_class", ModuleClassName(f.module_class)},
          {"inlined", f.inlined}};
}

json ThreadsJson(const SiteView& v) {
  json threads = json::array();
  for (const SiteViewThread& t : v.threads)
    threads.push_back({{"tid", t.tid}, {"name", t.name}, {"allocations", t.allocations}});
  return threads;
}

}  // namespace

void JsonStackTable::Add(uint32_t stack_id, const std::vector<SourceFrame>& stack) {
  auto [entry, inserted] = stacks.try_emplace(stack_id);
  if (!inserted) return;
  for (const SourceFrame& f : stack) {
    // One return address gives the same frames in every stack; its inlined
    // calls are told apart by their function and line.
    std::string key = std::to_string(f.address) + '\n' + f.function + '\n' + f.file + '\n' + std::to_string(f.line) +
                      '\n' + f.module + (f.inlined ? "\ni" : "\n");
    auto [index, added] = frame_index.try_emplace(std::move(key), static_cast<uint32_t>(frames.size()));
    if (added) frames.push_back(f);
    entry->second.push_back(index->second);
  }
}

void JsonStackTable::WriteInto(json& j) const {
  json ids = json::object();
  for (const auto& [id, indices] : stacks) ids[std::to_string(id)] = indices;
  json list = json::array();
  for (const SourceFrame& f : frames) list.push_back(FrameJson(f));
  j["stacks"] = std::move(ids);
  j["stack_frames"] = std::move(list);
}

json ModuleClassJson(const SiteView& v) { return v.stack.empty() ? json(nullptr) : json(ModuleClassName(v.module_class)); }

json SiteJson(const SiteView& v, JsonStackTable& stacks) {
  const SiteStats& s = v.stats;
  stacks.Add(s.stack_id, v.stack);
  json j = {{"stack_id", s.stack_id},
            {"name", v.name},
            {"module", v.module},
            {"module_class", ModuleClassJson(v)},
            {"from_game", v.from_game},
            {"function", v.function},
            {"via", v.via},
            {"location", v.location},
            {"thread", v.thread},
            {"threads", ThreadsJson(v)},
            {"allocations", s.allocations},
            {"bytes", s.bytes},
            {"frames_with_allocations", s.frames_with_allocations},
            {"frames_in_range", s.frames_in_range},
            {"allocs_per_frame_min", s.allocs_per_frame_min},
            {"allocs_per_frame_max", s.allocs_per_frame_max},
            {"allocs_per_frame_median", s.allocs_per_frame_median},
            {"bytes_per_frame_min", s.bytes_per_frame_min},
            {"bytes_per_frame_max", s.bytes_per_frame_max},
            {"bytes_per_frame_median", s.bytes_per_frame_median},
            {"size_min", s.size_min},
            {"size_max", s.size_max}};
  if (!v.stack_ids.empty()) j["stack_ids"] = v.stack_ids;
  return j;
}

json StackRefJson(const SiteView& v, JsonStackTable& stacks) {
  stacks.Add(v.stats.stack_id, v.stack);
  return {{"stack_id", v.stats.stack_id},
          {"name", v.name},
          {"module", v.module},
          {"module_class", ModuleClassJson(v)},
          {"function", v.function},
          {"location", v.location},
          {"thread", v.thread},
          {"threads", ThreadsJson(v)}};
}

json LeakJson(const SiteView& view, uint64_t blocks, uint64_t leaked_bytes, JsonStackTable& stacks) {
  json j = SiteJson(view, stacks);
  j["blocks"] = blocks;
  j["leaked_bytes"] = leaked_bytes;
  return j;
}

json RangeJson(FrameRange r) { return {{"from", r.from}, {"to", r.to}}; }

json JudgedFramesJson(const JudgedFrames& judged) {
  json ranges = json::array();
  for (const FrameRange& r : judged.ranges) ranges.push_back(RangeJson(r));
  return {{"judged", judged.steady_only ? "steady" : "all"},
          {"ranges", std::move(ranges)},
          {"frame_count", judged.count},
          {"all_frames_option", "--all-frames"}};
}

json ThreadJson(const ThreadStats& t, double allocations_per_frame, uint64_t alloc_time_ns) {
  return {{"tid", t.tid},
          {"name", t.name},
          {"allocations", t.allocations},
          {"bytes", t.bytes},
          {"frees", t.frees},
          {"bytes_freed", t.bytes_freed},
          {"maps", t.maps},
          {"mapped_bytes", t.mapped_bytes},
          {"allocations_per_frame", allocations_per_frame},
          {"frames_with_allocations", t.frames_with_allocations},
          {"alloc_time_ns", t.alloc_time_ns},
          {"alloc_time_share", Share(t.alloc_time_ns, alloc_time_ns)}};
}

json SizeBinJson(int bin, const SizeBinTotals& totals) {
  return {{"bin", bin},
          {"size_min", SizeBinMin(bin)},
          {"size_max", SizeBinMax(bin)},
          {"allocations", totals.allocations},
          {"bytes", totals.bytes}};
}

json MismatchJson(const Mismatch& m, const SiteView& alloc, const SiteView& free, JsonStackTable& stacks) {
  const bool has_alloc = m.kind != Mismatch::Kind::kUnknownPointer;
  return {{"kind", MismatchKindName(m.kind)},
          {"allocated_with", has_alloc ? json(AllocName(m.alloc_family)) : json(nullptr)},
          {"freed_with", FreeName(m.free_family)},
          {"count", m.count},
          {"bytes", m.bytes},
          {"first_frame", m.first_frame},
          {"first_address", Hex(m.first_address)},
          {"alloc_site", has_alloc ? StackRefJson(alloc, stacks) : json(nullptr)},
          {"free_site", m.free_stack ? StackRefJson(free, stacks) : json(nullptr)}};
}

json DiffRowJson(const LiveSetDiffRow& row, const SiteView& view, JsonStackTable& stacks) {
  json site = StackRefJson(view, stacks);
  site["change"] = ChangeName(row.change);
  site["blocks_a"] = row.blocks_a;
  site["bytes_a"] = row.bytes_a;
  site["blocks_b"] = row.blocks_b;
  site["bytes_b"] = row.bytes_b;
  site["delta_blocks"] = row.delta_blocks();
  site["delta_bytes"] = row.delta_bytes();
  return site;
}

json LifetimeJson(const SiteLifetime& s, const SiteView& view, bool owned, JsonStackTable& stacks) {
  json site = StackRefJson(view, stacks);
  site["from_game"] = view.from_game;
  site["owned"] = owned;
  site["class"] = LifetimeClassName(s.lifetime);
  site["advice"] = LifetimeAdvice(s.lifetime);
  site["allocations"] = s.allocations;
  site["frees"] = s.frees;
  site["bytes"] = s.bytes;
  site["size_min"] = s.size_min;
  site["size_max"] = s.size_max;
  site["freed_same_frame"] = s.freed_same_frame;
  site["freed_at_boundary"] = s.freed_at_boundary;
  site["lived_to_end"] = s.lived_to_end;
  site["lifetime_frames_max"] = s.lifetime_frames_max;
  site["ring_delay_frames"] = s.ring_delay_frames;
  site["ring_frees"] = s.ring_frees;
  site["peak_live_blocks"] = s.peak_live_blocks;
  site["peak_live_bytes"] = s.peak_live_bytes;
  site["calls_saved"] = s.calls_saved;
  site["bytes_saved"] = s.bytes_saved;
  return site;
}

json GpuObjectJson(const GpuObject& o, const SiteView& made_by, JsonStackTable& stacks) {
  json row = {{"kind", GpuKindName(o.kind)},
              {"context", o.context},
              {"name", o.name},
              {"bytes", o.bytes},
              {"peak_bytes", o.peak_bytes},
              {"size_basis", GpuSizeBasisName(o.basis)},
              {"format", o.format},
              {"format_name", GpuFormatName(o)},
              {"target", o.target},
              {"width", o.width},
              {"height", o.height},
              {"depth", o.depth},
              {"dimensions", GpuDimensions(o)},
              {"levels", o.levels},
              {"samples", o.samples},
              {"made_frame", o.made_frame},
              {"deleted_frame", o.alive ? json() : json(o.deleted_frame)},
              {"alive", o.alive},
              {"resizes", o.resizes}};
  if (o.kind >= GpuKind::kVkMemory) {
    row["memory"] = o.memory;
    row["offset"] = o.offset;
    row["memory_type"] = o.memory_type;
    row["memory_heap"] = o.memory_heap;
    row["memory_flags"] = o.memory_flags;
  }
  row["site"] = StackRefJson(made_by, stacks);
  return row;
}

json AllocatorJson(const AllocatorUsage& u, const std::string& title, const SiteView& created_by,
                   const std::vector<SiteView>& outlived_sites, JsonStackTable& stacks) {
  json outlived = json::array();
  for (size_t i = 0; i < u.outlived.size() && i < outlived_sites.size(); ++i) {
    const OutlivedBlock& b = u.outlived[i];
    outlived.push_back({{"address", Hex(b.address)},
                        {"size", b.size},
                        {"alloc_frame", b.alloc_frame},
                        {"release_frame", b.release_frame},
                        {"free_frame", b.free_frame},
                        {"site", StackRefJson(outlived_sites[i], stacks)}});
  }
  json created = nullptr;  // where and when a private heap was made
  if (u.info.kind == AllocatorKind::kHeap)
    created = {{"frame", u.created_frame},
               {"thread", u.info.thread_id},
               {"site", u.info.stack_id ? StackRefJson(created_by, stacks) : json(nullptr)}};
  return {{"id", u.info.id},
          {"name", u.info.name},
          {"title", title},
          {"created", std::move(created)},
          {"destroyed_frame", u.destroyed ? json(u.destroyed_frame) : json(nullptr)},
          {"first_frame", u.frames.empty() ? json(nullptr) : json(u.frames.front().frame)},
          {"last_frame", u.frames.empty() ? json(nullptr) : json(u.frames.back().frame)},
          {"kind", AllocatorKindName(u.info.kind)},
          {"base", Hex(u.info.base)},
          {"capacity", u.info.capacity},
          {"backing_block", u.backing_block},
          {"high_water", u.high_water},
          {"occupancy", u.occupancy()},
          {"blocks", u.blocks},
          {"bytes", u.bytes},
          {"releases", u.releases},
          {"frames", u.frames.size()},
          {"median_blocks_per_frame", u.median_blocks_per_frame},
          {"median_bytes_per_frame", u.median_bytes_per_frame},
          {"median_releases_per_frame", u.median_releases_per_frame},
          {"live_blocks_end", u.live_blocks_end},
          {"live_bytes_end", u.live_bytes_end},
          {"outlived", std::move(outlived)}};
}

}  // namespace memframe::analysis
