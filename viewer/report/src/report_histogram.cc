// `histogram`: allocation sizes in power-of-two bins over a frame range,
// with the call sites that fill each bin.
#include <algorithm>

#include "memframe/analysis/size_bin_sites.h"
#include "memframe/analysis/size_histogram.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

constexpr size_t kSitesPerBin = 10;
constexpr size_t kBarWidth = 40;

FrameRange HistogramRange(const ReportInput& input) {
  if (input.options.frame) {
    uint64_t frame = FrameOption(input);
    return {frame, frame};
  }
  return AllFramesRange(input);
}

struct Histogram {
  FrameRange range;
  SizeHistogram totals;
  SizeBinSites sites;
};

Histogram ComputeHistogram(const ReportInput& input) {
  Histogram h;
  h.range = HistogramRange(input);
  h.totals = SizeHistogramIndex::Build(input.capture.main).Range(h.range);
  h.sites = SitesBySizeBin(input.capture.main, h.range);
  if (!input.options.classes.KeepsAll()) {
    // The bins count only the kept classes' sites.
    h.totals.allocations = h.totals.bytes = 0;
    h.totals.first_bin = kSizeBins;
    h.totals.last_bin = -1;
    for (size_t b = 0; b < h.sites.size(); ++b) {
      std::erase_if(h.sites[b], [&](const SizeBinSite& s) { return !KeepsSite(input, s.stack_id); });
      h.totals.bins[b] = {};
      for (const SizeBinSite& s : h.sites[b]) {
        h.totals.bins[b].allocations += s.allocations;
        h.totals.bins[b].bytes += s.bytes;
      }
      h.totals.allocations += h.totals.bins[b].allocations;
      h.totals.bytes += h.totals.bins[b].bytes;
      if (h.sites[b].empty()) continue;
      h.totals.first_bin = std::min(h.totals.first_bin, static_cast<int>(b));
      h.totals.last_bin = static_cast<int>(b);
    }
  }
  return h;
}

}  // namespace

void WriteHistogramText(const ReportInput& input, std::ostream& out) {
  Histogram h = ComputeHistogram(input);
  out << "Allocation sizes in " << RangeText(h.range) << ClassesShown(input) << ": " << Plural(h.totals.allocations, "allocation") << ", "
      << FormatBytes(h.totals.bytes) << "\n\n";
  if (h.totals.allocations == 0) {
    out << "none\n";
    return;
  }
  uint64_t most = 0;
  for (int b = h.totals.first_bin; b <= h.totals.last_bin; ++b) most = std::max(most, h.totals.bins[b].allocations);
  TextTable table({{"size", true}, {"allocs"}, {"bytes"}, {"", true}, {"top site", true}});
  for (int b = h.totals.first_bin; b <= h.totals.last_bin; ++b) {
    const SizeBinTotals& t = h.totals.bins[b];
    size_t bar = most ? static_cast<size_t>((t.allocations * kBarWidth + most - 1) / most) : 0;
    std::string top;
    if (!h.sites[b].empty()) {
      const SizeBinSite& s = h.sites[b].front();
      SiteView v = NameStack(s.stack_id, input);
      top = FormatCount(s.allocations) + " from " + ClassCell(v) + " " + NameCell(v);
      if (!v.location.empty()) top += " (" + v.location + ")";
      if (ShowsThreads(input) && !v.thread.empty()) top += " [" + v.thread + "]";
    }
    table.AddRow({FormatSizeBin(b), FormatCount(t.allocations), FormatBytes(t.bytes), std::string(bar, '#'), top});
  }
  table.Write(out);
}

void WriteHistogramJson(const ReportInput& input, std::ostream& out) {
  Histogram h = ComputeHistogram(input);
  json bins = json::array();
  for (int b = h.totals.first_bin; b <= h.totals.last_bin; ++b) {
    const SizeBinTotals& t = h.totals.bins[b];
    if (t.allocations == 0) continue;
    json sites = json::array();
    for (size_t i = 0; i < h.sites[b].size() && i < kSitesPerBin; ++i) {
      const SizeBinSite& s = h.sites[b][i];
      json site = StackRefJson(NameStack(s.stack_id, input), input.json_stacks);
      site["allocations"] = s.allocations;
      site["bytes"] = s.bytes;
      sites.push_back(std::move(site));
    }
    json bin = SizeBinJson(b, t);
    bin["site_count"] = h.sites[b].size();
    bin["sites"] = std::move(sites);
    bins.push_back(std::move(bin));
  }
  Emit({{"range", RangeJson(h.range)},
        {"allocations", h.totals.allocations},
        {"bytes", h.totals.bytes},
        {"bins", std::move(bins)}},
       input, out);
}

}  // namespace memframe::analysis
