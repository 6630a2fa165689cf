// `fragmentation`: heap regions and mappings over time (fragmentation.h),
// one frame in detail with --frame, and a picture with --png.
#include <algorithm>
#include <cstdio>

#include "memframe/report/address_map_png.h"
#include "memframe/analysis/fragmentation.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

constexpr uint32_t kTimelineSamples = 64;

struct Aggregate {
  uint64_t regions = 0, span = 0, blocks = 0, live_bytes = 0, holes = 0, free_bytes = 0, largest_free_gap = 0;
  double fragmentation() const { return Fragmentation(largest_free_gap, free_bytes); }
};

Aggregate Sum(const std::vector<RegionLayout>& regions, bool mapped) {
  Aggregate a;
  for (const RegionLayout& r : regions) {
    if (r.mapped != mapped) continue;
    a.regions++;
    a.span += r.span();
    a.blocks += r.blocks;
    a.live_bytes += r.live_bytes;
    a.holes += r.holes;
    a.free_bytes += r.free_bytes;
    a.largest_free_gap = std::max(a.largest_free_gap, r.largest_free_gap);
  }
  return a;
}

std::string Ratio(double value) {
  char buf[16];
  snprintf(buf, sizeof(buf), "%.2f", value);
  return buf;
}

struct Result {
  std::vector<FragmentationSample> samples;
  bool one_frame = false;
  AddressMapImage image;  // when --png
};

Result ComputeFragmentation(const ReportInput& input) {
  Result r;
  uint64_t frame = FrameOption(input);  // validates --frame
  r.one_frame = input.options.frame.has_value();
  std::vector<uint64_t> frames =
      r.one_frame ? std::vector<uint64_t>{frame} : SampleFrames(input.heap.frames, frame, kTimelineSamples);
  r.samples = FragmentationTimeline(input.capture.main, frames);
  if (!input.options.png.empty()) {
    r.image = RenderAddressMap(AddressSpaceAtFrame(input.capture.main, frame), input.options.coloring);
    std::string error;
    if (!WritePng(r.image, input.options.png, &error, {input.capture.path})) throw ReportError(error);
  }
  return r;
}

json AggregateJson(const Aggregate& a) {
  return {{"regions", a.regions},       {"span", a.span},   {"blocks", a.blocks},
          {"live_bytes", a.live_bytes}, {"holes", a.holes}, {"free_bytes", a.free_bytes},
          {"largest_free_gap", a.largest_free_gap}, {"fragmentation", a.fragmentation()}};
}

json RegionJson(const RegionLayout& r) {
  json j = {{"kind", r.mapped ? "mapped" : "heap"},
            {"start", Hex(r.start)},
            {"end", Hex(r.end)},
            {"span", r.span()},
            {"blocks", r.blocks},
            {"live_bytes", r.live_bytes},
            {"holes", r.holes},
            {"free_bytes", r.free_bytes},
            {"largest_free_gap", r.largest_free_gap},
            {"fragmentation", r.fragmentation}};
  if (r.mapped) j["stack_id"] = r.stack_id;
  return j;
}

void WriteRegionTable(const FragmentationSample& sample, std::ostream& out) {
  TextTable table({{"kind", true}, {"start", true}, {"span"}, {"live"}, {"blocks"}, {"holes"}, {"free"},
                   {"largest gap"}, {"frag"}});
  for (const RegionLayout& r : sample.regions) {
    table.AddRow({r.mapped ? "mapped" : "heap", Hex(r.start), FormatBytes(r.span()), FormatBytes(r.live_bytes),
                  FormatCount(r.blocks), FormatCount(r.holes), FormatBytes(r.free_bytes),
                  FormatBytes(r.largest_free_gap), Ratio(r.fragmentation)});
  }
  table.Write(out);
}

void WriteTimelineTable(const std::vector<FragmentationSample>& samples, std::ostream& out) {
  TextTable table({{"frame"}, {"heap regions"}, {"span"}, {"live"}, {"holes"}, {"free"}, {"largest gap"}, {"frag"},
                   {"mappings"}, {"mapped"}});
  for (const FragmentationSample& s : samples) {
    Aggregate heap = Sum(s.regions, false), mapped = Sum(s.regions, true);
    table.AddRow({std::to_string(s.frame), FormatCount(heap.regions), FormatBytes(heap.span),
                  FormatBytes(heap.live_bytes), FormatCount(heap.holes), FormatBytes(heap.free_bytes),
                  FormatBytes(heap.largest_free_gap), Ratio(heap.fragmentation()), FormatCount(mapped.regions),
                  FormatBytes(mapped.span)});
  }
  table.Write(out);
}

}  // namespace

void WriteFragmentationText(const ReportInput& input, std::ostream& out) {
  Result r = ComputeFragmentation(input);
  out << "Heap regions: live blocks clustered where gaps stay under " << FormatBytes(kRegionGap)
      << "; a hole is a gap over " << kHoleSlack << " B; fragmentation = 1 - largest hole / free\n";
  if (r.one_frame && !r.samples.empty()) {
    out << "At the end of frame " << r.samples.front().frame << ":\n\n";
    WriteRegionTable(r.samples.front(), out);
  } else {
    out << "At the end of " << Plural(r.samples.size(), "sampled frame") << ":\n\n";
    WriteTimelineTable(r.samples, out);
  }
  if (!input.options.png.empty()) {
    out << "\nAddress map written to " << input.options.png << " (" << r.image.width << "x" << r.image.height
        << ", " << FormatBytes(r.image.bytes_per_pixel) << " per pixel, coloured by "
        << (input.options.coloring == MapColoring::kAge ? "age: red new .. blue old" : "call site")
        << "; dark = free, black rows separate regions)\n";
  }
}

void WriteFragmentationJson(const ReportInput& input, std::ostream& out) {
  Result r = ComputeFragmentation(input);
  json samples = json::array();
  for (const FragmentationSample& s : r.samples) {
    json regions = json::array();
    for (const RegionLayout& region : s.regions) regions.push_back(RegionJson(region));
    samples.push_back({{"frame", s.frame},
                       {"heap", AggregateJson(Sum(s.regions, false))},
                       {"mapped", AggregateJson(Sum(s.regions, true))},
                       {"regions", std::move(regions)}});
  }
  json png = nullptr;
  if (!input.options.png.empty()) {
    png = {{"path", input.options.png},
           {"width", r.image.width},
           {"height", r.image.height},
           {"bytes_per_pixel", r.image.bytes_per_pixel},
           {"coloring", input.options.coloring == MapColoring::kAge ? "age" : "site"}};
  }
  Emit({{"region_gap", kRegionGap}, {"hole_slack", kHoleSlack}, {"samples", std::move(samples)}, {"png", png}}, out);
}

}  // namespace memframe::analysis
