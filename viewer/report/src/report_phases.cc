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

namespace {

// A steady phase's own rate: the medians its frames are judged against.
std::string RateText(const Phase& p) {
  if (p.kind != PhaseKind::kSteady) return "";
  return FormatCount(p.allocation_spike.median) + " / " + FormatBytes(p.bytes_spike.median);
}

}  // namespace

void WritePhasesText(const ReportInput& input, std::ostream& out) {
  const std::vector<Phase>& phases = FindPhases(input.heap.frames);
  if (phases.empty()) {
    out << "no frames\n";
    return;
  }
  out << "Phases (each judged against the frames around it; REPORTS.md). A steady phase's rate is the median\n"
      << "allocations / bytes of its frames; a spike is a frame that stands out from its own phase.\n\n";
  TextTable table({{"#"}, {"phase", true}, {"frames", true}, {"count"}, {"allocations"}, {"allocated"},
                   {"rate a frame"}, {"spikes"}, {"live after"}, {"live growth"}});
  for (size_t i = 0; i < phases.size(); ++i) {
    const Phase& p = phases[i];
    table.AddRow({std::to_string(i + 1), PhaseName(p), FramesText(p.frames), FormatCount(FramesIn(input, p.frames)),
                  FormatCount(p.allocations), FormatBytes(p.bytes_allocated), RateText(p),
                  p.kind == PhaseKind::kSteady ? FormatCount(p.spikes) : "",
                  FormatBytes(p.live_after),
                  FormatSignedBytes(static_cast<int64_t>(p.live_after) - static_cast<int64_t>(p.live_before))});
  }
  table.Write(out);
  if (const Phase* load = LargestLoad(phases)) {
    out << "\nWhat the largest load (" << PhaseName(*load) << ") left behind: memframe report CAPTURE diff "
        << load->frame_before << " " << load->frames.to << "  (the default of `diff`)\n";
  }
  out << "Any report answers for one phase with --phase N or --phase NAME (e.g. --phase \"steady 2\").\n";
}

void WritePhasesJson(const ReportInput& input, std::ostream& out) {
  const std::vector<Phase>& phases = FindPhases(input.heap.frames);
  json rows = json::array();
  for (const Phase& p : phases) {
    json row = {{"phase", PhaseKindName(p.kind)},
                {"name", PhaseName(p)},
                {"frames", RangeJson(p.frames)},
                {"frame_count", FramesIn(input, p.frames)},
                {"allocations", p.allocations},
                {"bytes_allocated", p.bytes_allocated},
                {"bytes_freed", p.bytes_freed},
                {"frame_before", p.frame_before},
                {"live_bytes_before", p.live_before},
                {"live_bytes_after", p.live_after}};
    if (p.kind == PhaseKind::kSteady) {
      row["allocations_per_frame_median"] = p.allocation_spike.median;
      row["bytes_per_frame_median"] = p.bytes_spike.median;
      row["spike_threshold"] = {{"allocations", p.allocation_spike.threshold}, {"bytes", p.bytes_spike.threshold}};
      row["spikes"] = p.spikes;
    }
    rows.push_back(std::move(row));
  }
  const Phase* load = LargestLoad(phases);
  Emit({{"phases", std::move(rows)}, {"largest_load", load ? RangeJson(load->frames) : json(nullptr)}}, out);
}

}  // namespace memframe::analysis
