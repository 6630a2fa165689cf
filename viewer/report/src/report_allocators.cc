// `allocators`: the game's own allocators, declared through annotate.h, and
// the private heaps it created (allocators.h).
#include "memframe/analysis/allocators.h"
#include "memframe/analysis/thread_filter.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

const char* kNoneDeclared =
    "The program declared no allocator of its own (memframe_allocator_declare in "
    "agent/include/memframe/annotate.h) and created no private heap.\n";

// A heap has no capacity of its own ("-"); a declared allocator's unknown one is "?".
std::string CapacityCell(const AllocatorInfo& info) {
  if (info.kind == AllocatorKind::kHeap) return "-";
  return info.capacity ? FormatBytes(info.capacity) : "?";
}

// The function of the allocator's creation stack ("" when unknown).
std::string CreatedIn(const AllocatorInfo& info, const ReportInput& input) {
  return info.stack_id ? NameStack(info.stack_id, input).function : "";
}

std::string TidName(const ReportInput& input, uint32_t tid) {
  const Stream& stream = input.capture.main;
  for (size_t i = 0; i < stream.threads.size(); ++i)
    if (stream.threads[i].tid == tid) return ThreadName(stream, static_cast<uint16_t>(i));
  return "tid " + std::to_string(tid);
}

// Where and when each private heap was made and destroyed, and what it held.
void WriteHeapsText(const ReportInput& input, const std::vector<AllocatorUsage>& usage, std::ostream& out) {
  TextTable table({{"heap", true}, {"created", true}, {"thread", true}, {"destroyed", true}, {"blocks"},
                   {"bytes"}, {"live at end"}, {"site", true}});
  bool any = false;
  for (const AllocatorUsage& u : usage) {
    if (u.info.kind != AllocatorKind::kHeap) continue;
    any = true;
    table.AddRow({u.info.name, "frame " + std::to_string(u.created_frame), TidName(input, u.info.thread_id),
                  u.destroyed ? "frame " + std::to_string(u.destroyed_frame) : "no", FormatCount(u.blocks),
                  FormatBytes(u.bytes), FormatCount(u.live_blocks_end) + " (" + FormatBytes(u.live_bytes_end) + ")",
                  u.info.stack_id ? NameCell(NameStack(u.info.stack_id, input)) : "?"});
  }
  if (!any) return;
  out << "\nPrivate heaps the program created (HeapCreate): a destroyed heap's blocks were freed with it, a "
         "heap never destroyed keeps its blocks to the end (leaks):\n\n";
  table.Write(out, "  ");
}

}  // namespace

void WriteAllocatorsText(const ReportInput& input, std::ostream& out) {
  const std::vector<AllocatorUsage> usage = AnalyzeAllocators(input.capture.main);
  if (usage.empty()) {
    out << kNoneDeclared;
    return;
  }
  out << "The program's own allocators and private heaps (per frame: the median over the frames from each one's "
         "first use to its last)\n\n";
  TextTable table({{"allocator", true}, {"kind", true}, {"capacity"}, {"backing block"}, {"high-water"},
                   {"occupancy"}, {"blocks/frame"}, {"bytes/frame"}, {"releases/frame"}, {"releases"},
                   {"live at end"}});
  for (const AllocatorUsage& u : usage) {
    table.AddRow({AllocatorTitle(u.info, CreatedIn(u.info, input)), AllocatorKindName(u.info.kind), CapacityCell(u.info),
                  u.backing_block ? FormatBytes(u.backing_block) : "-", FormatBytes(u.high_water),
                  u.info.capacity ? FormatPercent(u.occupancy()) : "-", FormatCount(u.median_blocks_per_frame),
                  FormatBytes(u.median_bytes_per_frame), FormatCount(u.median_releases_per_frame),
                  FormatCount(u.releases),
                  FormatCount(u.live_blocks_end) + " (" + FormatBytes(u.live_bytes_end) + ")"});
  }
  table.Write(out, "  ");
  WriteHeapsText(input, usage, out);
  bool any = false;
  for (const AllocatorUsage& u : usage) any = any || !u.outlived.empty();
  if (!any) return;
  out << "\nBlocks the program gave back after their allocator had released them (held past the reset):\n\n";
  TextTable outlived({{"allocator", true}, {"size"}, {"allocated"}, {"released"}, {"given back"}, {"site", true}});
  for (const AllocatorUsage& u : usage) {
    for (const OutlivedBlock& b : u.outlived) {
      outlived.AddRow({u.info.name, FormatBytes(b.size), "frame " + std::to_string(b.alloc_frame),
                       "frame " + std::to_string(b.release_frame), "frame " + std::to_string(b.free_frame),
                       NameCell(NameStack(b.alloc_stack, input))});
    }
  }
  outlived.Write(out, "  ");
}

void WriteAllocatorsJson(const ReportInput& input, std::ostream& out) {
  json rows = json::array();
  for (const AllocatorUsage& u : AnalyzeAllocators(input.capture.main)) {
    std::vector<SiteView> sites;
    for (const OutlivedBlock& b : u.outlived) sites.push_back(NameStack(b.alloc_stack, input));
    rows.push_back(AllocatorJson(u, AllocatorTitle(u.info, CreatedIn(u.info, input)), NameStack(u.info.stack_id, input),
                                 sites, input.json_stacks));
  }
  Emit({{"allocators", std::move(rows)}}, input, out);
}

}  // namespace memframe::analysis
