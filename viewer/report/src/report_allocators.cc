// `allocators`: the game's own allocators, declared through annotate.h
// (allocators.h).
#include "memframe/analysis/allocators.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

const char* kNoneDeclared =
    "The program declared no allocator of its own (memframe_allocator_declare in "
    "agent/include/memframe/annotate.h).\n";

std::string CapacityCell(uint64_t bytes) { return bytes ? FormatBytes(bytes) : "?"; }

}  // namespace

void WriteAllocatorsText(const ReportInput& input, std::ostream& out) {
  const std::vector<AllocatorUsage> usage = AnalyzeAllocators(input.capture.main);
  if (usage.empty()) {
    out << kNoneDeclared;
    return;
  }
  out << "The program's own allocators (per frame: the median over the frames from each one's first use to its "
         "last)\n\n";
  TextTable table({{"allocator", true}, {"kind", true}, {"capacity"}, {"backing block"}, {"high-water"},
                   {"occupancy"}, {"blocks/frame"}, {"bytes/frame"}, {"releases/frame"}, {"releases"},
                   {"live at end"}});
  for (const AllocatorUsage& u : usage) {
    table.AddRow({u.info.name, AllocatorKindName(u.info.kind), CapacityCell(u.info.capacity),
                  u.backing_block ? FormatBytes(u.backing_block) : "-", FormatBytes(u.high_water),
                  u.info.capacity ? FormatPercent(u.occupancy()) : "-", FormatCount(u.median_blocks_per_frame),
                  FormatBytes(u.median_bytes_per_frame), FormatCount(u.median_releases_per_frame),
                  FormatCount(u.releases),
                  FormatCount(u.live_blocks_end) + " (" + FormatBytes(u.live_bytes_end) + ")"});
  }
  table.Write(out, "  ");
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
    rows.push_back(AllocatorJson(u, sites, input.json_stacks));
  }
  Emit({{"allocators", std::move(rows)}}, input, out);
}

}  // namespace memframe::analysis
