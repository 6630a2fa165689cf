// `phases`: start-up, each load, steady play and the teardown (phases.h),
// with what each allocated and left behind, and the diff that shows a load.
#include "memframe/analysis/phases.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

std::string FramesText(FrameRange r) {
  return r.from == r.to ? std::to_string(r.from) : std::to_string(r.from) + ".." + std::to_string(r.to);
}

}  // namespace

void WritePhasesText(const ReportInput& input, std::ostream& out) {
  std::vector<Phase> phases = FindPhases(input.heap.frames);
  if (phases.empty()) {
    out << "no frames\n";
    return;
  }
  out << "Phases (a load: frames that allocate or grow the live heap far above steady play; REPORTS.md):\n\n";
  TextTable table({{"phase", true}, {"frames", true}, {"count"}, {"allocations"}, {"allocated"}, {"live after"},
                   {"live growth"}});
  for (const Phase& p : phases) {
    table.AddRow({PhaseKindName(p.kind), FramesText(p.frames), FormatCount(FramesIn(input, p.frames)),
                  FormatCount(p.allocations), FormatBytes(p.bytes_allocated), FormatBytes(p.live_after),
                  FormatSignedBytes(static_cast<int64_t>(p.live_after) - static_cast<int64_t>(p.live_before))});
  }
  table.Write(out);
  if (const Phase* load = LargestLoad(phases)) {
    out << "\nWhat the largest load left behind: memframe report CAPTURE diff " << load->frame_before << " "
        << load->frames.to << "  (the default of `diff`)\n";
  }
}

void WritePhasesJson(const ReportInput& input, std::ostream& out) {
  std::vector<Phase> phases = FindPhases(input.heap.frames);
  json rows = json::array();
  for (const Phase& p : phases) {
    rows.push_back({{"phase", PhaseKindName(p.kind)},
                    {"frames", RangeJson(p.frames)},
                    {"frame_count", FramesIn(input, p.frames)},
                    {"allocations", p.allocations},
                    {"bytes_allocated", p.bytes_allocated},
                    {"bytes_freed", p.bytes_freed},
                    {"frame_before", p.frame_before},
                    {"live_bytes_before", p.live_before},
                    {"live_bytes_after", p.live_after}});
  }
  const Phase* load = LargestLoad(phases);
  Emit({{"phases", std::move(rows)}, {"largest_load", load ? RangeJson(load->frames) : json(nullptr)}}, out);
}

}  // namespace memframe::analysis
