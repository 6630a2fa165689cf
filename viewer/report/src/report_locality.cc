// `locality`: how scattered each site's live blocks are at the end of one
// frame (locality.h), with pool advice for the per-frame sites that spread
// their objects widely.
#include <cstdio>

#include "memframe/analysis/locality.h"
#include "report_json_common.h"
#include "report_text_common.h"

namespace memframe::analysis {

namespace {

constexpr size_t kLocalityRows = 30;

std::vector<SiteLocality> Analyze(const ReportInput& input, uint64_t frame) {
  LiveSet live = input.heap.live_sets.AtFrame(input.capture.main, frame);
  std::vector<SiteLocality> sites = AnalyzeLocality(live, input.heap.sites, input.heap.frames.frames.size());
  std::erase_if(sites, [&](const SiteLocality& s) { return !KeepsSite(input, s.stack_id); });
  return sites;
}

std::string PerBlock(double value) {
  char buf[16];
  snprintf(buf, sizeof buf, "%.2f", value);
  return buf;
}

}  // namespace

void WriteLocalityText(const ReportInput& input, std::ostream& out) {
  const uint64_t frame = FrameOption(input);
  const std::vector<SiteLocality> sites = Analyze(input, frame);
  out << "Live blocks by call site at the end of frame " << frame << ": the 4 KiB pages and 64 B cache lines they "
         "touch, against the pages their bytes would fill packed\n\n";
  TextTable table({{"#"}, {"blocks"}, {"bytes"}, {"pages"}, {"packed"}, {"pages/block"}, {"lines/block"},
                   {"span"}, {"advice", true}, {"function", true}, {"location", true}});
  size_t shown = 0;
  for (const SiteLocality& s : sites) {
    if (shown == kLocalityRows) break;
    SiteView v = NameStack(s.stack_id, input);
    table.AddRow({std::to_string(++shown), FormatCount(s.blocks), FormatBytes(s.bytes), FormatCount(s.pages),
                  FormatCount(s.packed_pages), PerBlock(s.pages_per_block()), PerBlock(s.lines_per_block()),
                  FormatBytes(s.span), s.scattered ? "per-frame and scattered: a pool would keep them together" : "",
                  NameCell(v), v.location});
  }
  if (shown == 0) {
    out << "none\n";
    return;
  }
  table.Write(out);
  if (sites.size() > shown) out << "... and " << FormatCount(sites.size() - shown) << " more (--json lists every site)\n";
}

void WriteLocalityJson(const ReportInput& input, std::ostream& out) {
  const uint64_t frame = FrameOption(input);
  json rows = json::array();
  for (const SiteLocality& s : Analyze(input, frame)) {
    json site = StackRefJson(NameStack(s.stack_id, input), input.json_stacks);
    site["blocks"] = s.blocks;
    site["bytes"] = s.bytes;
    site["pages"] = s.pages;
    site["cache_lines"] = s.cache_lines;
    site["packed_pages"] = s.packed_pages;
    site["span"] = s.span;
    site["pages_per_block"] = s.pages_per_block();
    site["lines_per_block"] = s.lines_per_block();
    site["per_frame"] = s.per_frame;
    site["scattered"] = s.scattered;
    rows.push_back(std::move(site));
  }
  Emit({{"frame", frame},
        {"page_bytes", kPageBytes},
        {"cache_line_bytes", kCacheLineBytes},
        {"scatter_factor", kScatterFactor},
        {"min_blocks", kLocalityMinBlocks},
        {"sites", std::move(rows)}},
       input, out);
}

}  // namespace memframe::analysis
